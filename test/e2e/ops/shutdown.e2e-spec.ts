import { Database } from '../../../src/adapters/postgres/database';
import { PostgresSpendLog } from '../../../src/adapters/postgres/postgres-spend-log';
import { spendRecord } from '../../contracts/spend-log.contract';
import { BackgroundTasks } from '../../../src/core/background-tasks';
import { SpendLog } from '../../../src/modules/billing/ports/spend-log';
import { startTestGateway } from '../../support/gateway-harness';
import { migratedDataDir } from '../../support/pglite-data-dir';
import { heldCount, TestRoutesModule } from '../../support/test-routes.module';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('graceful shutdown', () => {
  it('stops accepting, finishes in-flight requests, flushes background work, then closes storage', async () => {
    const dataDir = await migratedDataDir();
    const gateway = await startTestGateway({ GW_STORAGE: undefined, GW_DATA_DIR: dataDir, GW_SHUTDOWN_GRACE_SECS: '5' }, { imports: [TestRoutesModule] });
    const url = gateway.url;
    const entry = spendRecord();
    const spendLog = gateway.app.get(SpendLog);

    const inFlight = fetch(`${url}/test/slow?ms=600`);
    await sleep(100);
    gateway.app.get(BackgroundTasks).run('late spend write', async () => {
      await sleep(800);
      await spendLog.record(entry);
    });
    const closing = gateway.close();
    await sleep(50);

    await expect(fetch(`${url}/health/live`)).rejects.toThrow();
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect(res.headers.get('connection')).toBe('close');
    expect(await res.json()).toEqual({ done: true });
    await closing;

    const reopened = await Database.open({ kind: 'pglite', dataDir });
    try {
      expect(await new PostgresSpendLog(reopened.dataSource).findByRequestId(entry.requestId)).toEqual(entry);
    } finally {
      await reopened.close();
    }
  });

  it('cuts requests still running when the grace period ends', async () => {
    const gateway = await startTestGateway({ GW_SHUTDOWN_GRACE_SECS: '1' }, { imports: [TestRoutesModule] });
    const held = fetch(`${gateway.url}/test/hold`);
    while (heldCount() === 0) await sleep(10);
    const started = Date.now();
    await gateway.close();
    expect(Date.now() - started).toBeLessThan(3000);
    await expect(held).rejects.toThrow();
  });

  it('releases what it opened when it cannot listen', async () => {
    const first = await startTestGateway();
    const dataDir = await migratedDataDir();
    try {
      const port = new URL(first.url).port;
      await expect(startTestGateway({ PORT: port, GW_STORAGE: undefined, GW_DATA_DIR: dataDir })).rejects.toThrow(/EADDRINUSE/);
      const database = await Database.open({ kind: 'pglite', dataDir });
      await database.close();
    } finally {
      await first.close();
    }
  });
});
