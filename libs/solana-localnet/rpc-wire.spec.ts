import { once } from 'node:events';
import { Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction } from '@solana/web3.js';
import bs58 from 'bs58';
import WebSocket from 'ws';
import { MAINNET_USDC_MINT, startLocalnet, type Localnet } from './index';
import { answersAfterIdle } from './testing/keep-alive-reuse';

interface RpcReply {
  jsonrpc: string;
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

describe('the localnet JSON-RPC wire', () => {
  let localnet: Localnet;

  beforeEach(async () => {
    localnet = await startLocalnet();
    localnet.createUsdcMint();
  });

  afterEach(() => localnet.close());

  async function post(body: string): Promise<unknown> {
    const response = await fetch(localnet.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(response.status).toBe(200);
    return response.json();
  }

  const call = (method: string, params: unknown[] = []): Promise<RpcReply> => post(JSON.stringify({ jsonrpc: '2.0', id: 'req-1', method, params })) as Promise<RpcReply>;

  it('answers an unknown method with -32601 in the JSON-RPC error envelope', async () => {
    expect(await call('getEverything')).toEqual({ jsonrpc: '2.0', id: 'req-1', error: { code: -32601, message: 'Method not found' } });
  });

  it('answers a batch in order, each request on its own', async () => {
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'getSlot' },
      { jsonrpc: '2.0', id: 2, method: 'nope' },
      { jsonrpc: '2.0', id: 3, method: 'getHealth' },
    ];
    expect(await post(JSON.stringify(batch))).toEqual([
      { jsonrpc: '2.0', id: 1, result: 0 },
      { jsonrpc: '2.0', id: 2, error: { code: -32601, message: 'Method not found' } },
      { jsonrpc: '2.0', id: 3, result: 'ok' },
    ]);
  });

  it('reports parse errors, invalid requests and bad params', async () => {
    expect(await post('{"jsonrpc":')).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    expect(await post('[]')).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } });
    expect((await call('getBalance', [42])).error).toEqual({ code: -32602, message: 'Invalid params: address must be a string' });
    expect((await call('getBalance', ['not-a-key'])).error?.code).toBe(-32602);
    expect((await call('sendTransaction', ['AAAA', { encoding: 'base64' }])).error?.code).toBe(-32602);
    expect((await call('getAccountInfo', [MAINNET_USDC_MINT, { encoding: 'base64+zstd' }])).error?.code).toBe(-32602);
  });

  it('renders account data in base58, as the default binary string, and refuses base58 for large accounts', async () => {
    const mintData = (await call('getAccountInfo', [MAINNET_USDC_MINT, { encoding: 'base64' }])) as { result: { value: { data: [string] } } };
    const bytes = Buffer.from(mintData.result.value.data[0], 'base64');
    expect(bytes).toHaveLength(82);

    const base58 = (await call('getAccountInfo', [MAINNET_USDC_MINT, { encoding: 'base58' }])) as { result: { value: { data: unknown } } };
    expect(base58.result.value.data).toEqual([bs58.encode(bytes), 'base58']);
    const binary = (await call('getAccountInfo', [MAINNET_USDC_MINT])) as { result: { value: { data: unknown } } };
    expect(binary.result.value.data).toBe(bs58.encode(bytes));
    const sliced = (await call('getAccountInfo', [MAINNET_USDC_MINT, { encoding: 'base64', dataSlice: { offset: 44, length: 1 } }])) as {
      result: { value: { data: [string] } };
    };
    expect(Buffer.from(sliced.result.value.data[0], 'base64')).toEqual(Buffer.from([6])); // the decimals byte

    const owner = Keypair.generate().publicKey;
    const tokenAccount = localnet.createTokenAccount(owner);
    expect((await call('getAccountInfo', [tokenAccount.toBase58(), { encoding: 'base58' }])).error?.code).toBe(-32600);
  });

  it('answers GET /health and nothing but POST otherwise', async () => {
    const health = await fetch(`${localnet.url}/health`);
    expect(await health.text()).toBe('ok');
    expect((await fetch(localnet.url)).status).toBe(405);
  });

  it("leaves an idle keep-alive connection to its client: reused after longer than Node's 5 s server timeout, it is answered", async () => {
    // A connection the server dropped just as a client reused it failed that call ("other side closed").
    await answersAfterIdle(localnet.url, 6_000);
  }, 20_000);

  describe('websocket subscriptions', () => {
    async function connect(): Promise<{ socket: WebSocket; next: () => Promise<Record<string, unknown>> }> {
      const socket = new WebSocket(localnet.wsUrl);
      const messages: Array<Record<string, unknown>> = [];
      const waiting: Array<(message: Record<string, unknown>) => void> = [];
      socket.on('message', (data) => {
        const message = JSON.parse(data.toString()) as Record<string, unknown>;
        const waiter = waiting.shift();
        if (waiter) waiter(message);
        else messages.push(message);
      });
      await once(socket, 'open');
      const next = (): Promise<Record<string, unknown>> => (messages.length > 0 ? Promise.resolve(messages.shift() as Record<string, unknown>) : new Promise((resolve) => waiting.push(resolve)));
      return { socket, next };
    }

    it('notifies a signature subscription once, when the signature lands', async () => {
      const { socket, next } = await connect();
      const payer = Keypair.generate();
      localnet.airdrop(payer.publicKey, LAMPORTS_PER_SOL);
      const transfer = new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: Keypair.generate().publicKey, lamports: LAMPORTS_PER_SOL / 2 }));
      transfer.recentBlockhash = localnet.latestBlockhash().blockhash;
      transfer.sign(payer);
      const signature = bs58.encode(transfer.signature ?? []);

      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'signatureSubscribe', params: [signature, { commitment: 'confirmed' }] }));
      const subscribed = await next();
      expect(subscribed).toEqual({ jsonrpc: '2.0', id: 7, result: expect.any(Number) });

      expect((await call('sendTransaction', [transfer.serialize().toString('base64'), { encoding: 'base64' }])).result).toBe(signature);
      expect(await next()).toEqual({
        jsonrpc: '2.0',
        method: 'signatureNotification',
        params: { subscription: subscribed.result, result: { context: { slot: 0 }, value: { err: null } } },
      });

      // The validator ends a signature subscription with its notification.
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'signatureUnsubscribe', params: [subscribed.result] }));
      expect((await next()).error).toEqual({ code: -32602, message: 'Invalid params: Invalid subscription id.' });
      socket.close();
    });

    it('notifies at once for a signature that has already landed', async () => {
      const { socket, next } = await connect();
      const airdrop = (await call('requestAirdrop', [Keypair.generate().publicKey.toBase58(), 5_000_000])).result;
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'signatureSubscribe', params: [airdrop] }));
      const subscribed = await next();
      expect(await next()).toEqual(expect.objectContaining({ method: 'signatureNotification', params: expect.objectContaining({ subscription: subscribed.result }) }));
      socket.close();
    });

    it('notifies slot subscribers when slots advance, and closes sockets with 1000 on close()', async () => {
      const { socket, next } = await connect();
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'slotSubscribe' }));
      const subscribed = await next();
      localnet.advanceSlots(3);
      expect(await next()).toEqual({
        jsonrpc: '2.0',
        method: 'slotNotification',
        params: { subscription: subscribed.result, result: { parent: 2, root: 3, slot: 3 } },
      });
      socket.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'accountSubscribe', params: [MAINNET_USDC_MINT] }));
      expect((await next()).error).toEqual({ code: -32601, message: 'Method not found' });

      const closed = once(socket, 'close');
      await localnet.close();
      const [code] = (await closed) as [number];
      expect(code).toBe(1000);
    });
  });
});
