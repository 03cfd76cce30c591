import cluster, { type Worker } from 'node:cluster';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPrimary } from './primary';

describe('runPrimary', () => {
  it('keeps running when a send to a worker fails (EPIPE to one that has just died), and stops on SIGTERM', async () => {
    // A worker that only stays alive: what the primary does with it is under test, not the gateway.
    const exec = join(mkdtempSync(join(tmpdir(), 'gw-primary-')), 'idle-worker.js');
    writeFileSync(exec, 'setInterval(() => {}, 1000);\n');
    const log = { info: jest.fn(), warn: jest.fn(), error: jest.fn() };
    const online = new Promise<Worker>((resolve) => cluster.once('online', resolve));
    const stopped = runPrimary({ count: 1, exec, log, stopTimeoutMs: 5_000 });
    const worker = await online;
    // How Node reports a failed IPC send to a worker: an 'error' event on it, which nobody else handles.
    worker.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    expect(log.warn).toHaveBeenCalledWith(`worker ${worker.process.pid}: write EPIPE`);
    // As Node calls a signal's listeners: with the signal's name.
    process.emit('SIGTERM', 'SIGTERM');
    expect(await stopped).toBe(0);
    expect(log.error).not.toHaveBeenCalled();
  });
});
