import type { AppLogger } from '../../../logging/app-logger';
import { ReceiptOutbox } from './receipt-outbox';

const logger = { setContext: () => undefined, warn: () => undefined, error: () => undefined } as unknown as AppLogger;

describe('ReceiptOutbox', () => {
  it('writes at once when storage answers', async () => {
    const outbox = new ReceiptOutbox(logger);
    const written: string[] = [];
    await outbox.write('a', async () => written.push('a'));
    expect(written).toEqual(['a']);
    expect(outbox.size).toBe(0);
  });

  it('never fails its caller: a failed write is retried until it lands, and later writes wait behind it, in order', async () => {
    const outbox = new ReceiptOutbox(logger);
    let storageUp = false;
    const written: string[] = [];
    const write = (name: string) => async () => {
      if (!storageUp) throw new Error('connection refused');
      written.push(name);
    };
    await expect(outbox.write('broadcast', write('broadcast'))).resolves.toBeUndefined();
    await expect(outbox.write('settled', write('settled'))).resolves.toBeUndefined();
    expect(outbox.size).toBe(2);
    storageUp = true;
    const deadline = Date.now() + 5_000;
    while (outbox.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(written).toEqual(['broadcast', 'settled']);
    await outbox.beforeApplicationShutdown();
  });
});
