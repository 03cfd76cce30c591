import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Connection, Keypair, MessageV0, SystemProgram, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { startLocalnet } from '../../libs/solana-localnet';
import { answersAfterIdle } from '../../libs/solana-localnet/testing/keep-alive-reuse';
import { startRpcFaultProxy, type RpcFaultProxy } from './rpc-fault-proxy';

describe('startRpcFaultProxy', () => {
  let target: Server;
  let targetUrl: string;
  let proxy: RpcFaultProxy;
  let served: string[];
  let params: unknown[];

  beforeEach(async () => {
    served = [];
    params = [];
    target = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const parsed = JSON.parse(body) as { id: number; method: string; params?: unknown } | Array<{ id: number; method: string; params?: unknown }>;
        const answer = (call: { id: number; method: string; params?: unknown }): unknown => {
          served.push(call.method);
          params.push(call.params);
          return { jsonrpc: '2.0', id: call.id, result: call.method };
        };
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(Array.isArray(parsed) ? parsed.map(answer) : answer(parsed)));
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    proxy = await startRpcFaultProxy(targetUrl);
  });
  afterEach(async () => {
    await proxy.close();
    target.closeAllConnections();
    await new Promise((resolve) => target.close(resolve));
  });

  const call = (method: string, id = 1): Promise<Response> =>
    fetch(proxy.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id, method }) });

  it('passes calls through and counts them by method, batches counting each call', async () => {
    expect(await (await call('getSlot')).json()).toEqual({ jsonrpc: '2.0', id: 1, result: 'getSlot' });
    const batch = await fetch(proxy.url, {
      method: 'POST',
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'getSlot' },
        { jsonrpc: '2.0', id: 2, method: 'getBalance' },
      ]),
    });
    expect(((await batch.json()) as unknown[]).length).toBe(2);
    expect(proxy.calls('getSlot')).toBe(2);
    expect(proxy.calls('getBalance')).toBe(1);
    expect(proxy.calls()).toBe(3);
  });

  it("leaves an idle keep-alive connection to its client: reused after longer than Node's 5 s server timeout, it is answered", async () => {
    // A connection the proxy dropped just as a gateway reused it failed that call ("other side closed"): a 402 chain_unreachable.
    await answersAfterIdle(proxy.url, 6_000);
  }, 20_000);

  it('slow: delays only the listed methods', async () => {
    // A delay far above what a loaded machine adds to a loopback call, so that the two are told apart by it alone.
    proxy.mode({ kind: 'slow', delayMs: 1_500, methods: ['sendTransaction'] });
    let started = Date.now();
    await call('getSlot');
    expect(Date.now() - started).toBeLessThan(1_000);
    started = Date.now();
    expect((await call('sendTransaction')).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_450);
  });

  it('no-preflight: sendTransaction goes on with skipPreflight, other calls untouched', async () => {
    proxy.mode({ kind: 'no-preflight' });
    const send = (method: string, options: Record<string, unknown>) => fetch(proxy.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: ['AQID', options] }) });
    await send('sendTransaction', { encoding: 'base64', skipPreflight: false });
    await send('simulateTransaction', { encoding: 'base64' });
    expect(params).toEqual([
      ['AQID', { encoding: 'base64', skipPreflight: true }],
      ['AQID', { encoding: 'base64' }],
    ]);
  });

  it('fail: matching calls get a JSON-RPC error and never reach the target; `when` picks calls by their params', async () => {
    proxy.mode({ kind: 'fail', methods: ['sendTransaction'], when: (callParams) => (callParams as string[])[0] === 'claim' });
    const send = (param: string) => fetch(proxy.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'sendTransaction', params: [param] }) });
    const failed = await send('claim');
    expect(failed.status).toBe(200);
    expect(await failed.json()).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32005, message: 'Node is unhealthy' } });
    expect(((await (await send('deposit')).json()) as { result: string }).result).toBe('sendTransaction');
    expect(((await (await call('getSlot')).json()) as { result: string }).result).toBe('getSlot');
    const batch = await fetch(proxy.url, { method: 'POST', body: JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: ['claim'] }]) });
    expect(await batch.json()).toEqual([{ jsonrpc: '2.0', id: 1, error: { code: -32005, message: 'Node is unhealthy' } }]);
    expect(served).toEqual(['sendTransaction', 'getSlot']);
    expect(proxy.calls('sendTransaction')).toBe(3);
  });

  it('a `when` that throws does not match', async () => {
    proxy.mode({
      kind: 'fail',
      when: () => {
        throw new Error('undecodable');
      },
    });
    expect((await (await call('getSlot')).json()) as { result: string }).toMatchObject({ result: 'getSlot' });
  });

  it('flaky: every Nth matching call is a 503 that never reaches the target', async () => {
    proxy.mode({ kind: 'flaky', every: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await call('getSlot', i)).status);
    expect(statuses).toEqual([200, 503, 200, 503]);
    expect(served).toHaveLength(2);
    expect(proxy.calls('getSlot')).toBe(4);
  });

  it('silent: holds matching calls until the mode changes, then forwards them late', async () => {
    proxy.mode({ kind: 'silent', methods: ['getSignatureStatuses'] });
    let answered = false;
    const held = call('getSignatureStatuses').then((res) => {
      answered = true;
      return res;
    });
    expect((await call('getSlot')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(answered).toBe(false);
    expect(served).toEqual(['getSlot']);
    proxy.mode({ kind: 'pass' });
    expect(((await (await held).json()) as { result: string }).result).toBe('getSignatureStatuses');
  });

  it('accept-late: answers a sendTransaction with its signature at once, and forwards it only after the mode changes, in order', async () => {
    const keypair = Keypair.generate();
    const transaction = (lamports: number): VersionedTransaction => {
      const message = MessageV0.compile({
        payerKey: keypair.publicKey,
        recentBlockhash: '11111111111111111111111111111111',
        instructions: [SystemProgram.transfer({ fromPubkey: keypair.publicKey, toPubkey: keypair.publicKey, lamports })],
      });
      const signed = new VersionedTransaction(message);
      signed.sign([keypair]);
      return signed;
    };
    const [first, second] = [transaction(1), transaction(2)];
    const send = (tx: VersionedTransaction, id: number): Promise<Response> =>
      fetch(proxy.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'sendTransaction', params: [Buffer.from(tx.serialize()).toString('base64'), { encoding: 'base64' }] }),
      });
    proxy.mode({ kind: 'accept-late' });
    expect(await (await send(first, 1)).json()).toEqual({ jsonrpc: '2.0', id: 1, result: bs58.encode(first.signatures[0]) });
    expect(await (await send(second, 2)).json()).toEqual({ jsonrpc: '2.0', id: 2, result: bs58.encode(second.signatures[0]) });
    expect((await call('getSlot')).status).toBe(200);
    expect(served).toEqual(['getSlot']);
    proxy.mode({ kind: 'pass' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(served).toEqual(['getSlot', 'sendTransaction', 'sendTransaction']);
    expect((params.slice(1) as Array<[string]>).map(([encoded]) => encoded)).toEqual([first, second].map((tx) => Buffer.from(tx.serialize()).toString('base64')));
  });

  it('close destroys calls still held', async () => {
    proxy.mode({ kind: 'silent' });
    const held = call('getSlot').then(
      () => 'answered',
      () => 'failed',
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await proxy.close();
    expect(await held).toBe('failed');
    expect(served).toEqual([]);
  });

  it('fronts the local chain for a web3.js connection', async () => {
    const localnet = await startLocalnet();
    const chainProxy = await startRpcFaultProxy(localnet.url);
    try {
      const connection = new Connection(chainProxy.url);
      expect((await connection.getLatestBlockhash()).blockhash).toBe(localnet.latestBlockhash().blockhash);
      expect(chainProxy.calls('getLatestBlockhash')).toBe(1);
    } finally {
      await chainProxy.close();
      await localnet.close();
    }
  });
});
