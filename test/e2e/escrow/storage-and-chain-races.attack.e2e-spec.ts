import { Keypair, LAMPORTS_PER_SOL, VersionedTransaction } from '@solana/web3.js';
import bs58 from 'bs58';
import { Client } from 'pg';
import type { RunningGateway } from '../../../src/gateway';
import { a2aCall, userMessage, type A2ATaskBody } from '../../support/a2a-client';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { escrowPaymentHeader, pollUntil, refundAtExpiry, type EscrowReceiptBody } from '../../support/escrow-payments';
import { chatBody, PAID_MODEL, postChat, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { createTestDatabase } from '../../support/postgres';
import { startPostgresStatementProxy, type PostgresStatementProxy } from '../../support/postgres-statement-proxy';
import { startRpcFaultProxy, type RpcFaultProxy } from '../../support/rpc-fault-proxy';
import { serviceAvailable } from '../../support/services';
import { rpc } from '../../support/settlement-probes';
import { pgliteStorage } from '../../support/storage-env';

/**
 * Escrow attacked where its writes and reads race the chain and storage (docs/decisions.md,
 * "Escrow"): a claim that lands between two reads of the processor, a database answer lost after
 * its statement committed, an A2A provider slower than chat's request timeout. After each: what the
 * agent lost is what its receipt says it was charged, what the provider gained the same.
 */

const describeWithPostgres = serviceAvailable('postgres') ? describe : describe.skip;
const FAST = { GW_CLAIM_INTERVAL_MS: '50', GW_CLAIM_RETRY_BASE_MS: '20', GW_LEASE_TTL_SECS: '2', GW_SETTLEMENT_CONFIRM_SECS: '1', GW_RECONCILE_INTERVAL_SECS: '1', GW_SHUTDOWN_GRACE_SECS: '1' };

describe('escrow attacked at its races with the chain and storage', () => {
  let world: PaidWorld;
  let proxy: RpcFaultProxy;
  const gateways: RunningGateway[] = [];

  beforeAll(async () => {
    world = await startPaidWorld({ escrow: true });
    proxy = await startRpcFaultProxy(world.localnet.url);
  });
  afterEach(async () => {
    proxy.mode({ kind: 'pass' });
    await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
    world.upstreams.resetAll();
  });
  afterAll(async () => {
    await proxy.close();
    await world.close();
  });

  const start = async (env: Record<string, string | undefined>): Promise<RunningGateway> => {
    const gateway = await startPaidGateway(world, { GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_SOLANA_RPC_URL: proxy.url, ...FAST, ...env });
    gateways.push(gateway);
    return gateway;
  };
  const provider = (): Keypair => (world.escrow as NonNullable<PaidWorld['escrow']>).provider;
  const usdc = (key: Keypair): bigint => world.localnet.usdcBalance(key.publicKey);
  const newAgent = (): Keypair => {
    const agent = Keypair.generate();
    world.localnet.airdrop(agent.publicKey, LAMPORTS_PER_SOL);
    world.localnet.fundUsdc(agent.publicKey, 5_000_000n);
    return agent;
  };
  /** A chat escrow payment of the quote by `agent`. */
  const escrowPayment = async (gateway: RunningGateway, agent: Keypair) => {
    const { accepts } = (await (await postChat(gateway, chatBody())).json()) as { accepts: Array<{ scheme: string; amount: string }> };
    const amount = BigInt((accepts.find((entry) => entry.scheme === 'escrow') as { amount: string }).amount);
    return { amount, ...(await escrowPaymentHeader(world, gateway, { amount, agent })) };
  };
  const finalReceipt = (gateway: RunningGateway, path: string, timeoutMs = 15_000): Promise<EscrowReceiptBody> =>
    pollUntil(
      async () => (await (await fetch(`${gateway.url}${path}`)).json()) as EscrowReceiptBody,
      (body) => body.status !== 'pending',
      timeoutMs,
      500,
    );
  const isClaim = (params: unknown): boolean => {
    const [encoded] = params as [string];
    return VersionedTransaction.deserialize(Buffer.from(encoded, 'base64')).message.staticAccountKeys[0].equals(world.feePayer.publicKey);
  };

  it('a claim the node took that lands while the processor reads the escrow: the receipt is settled at what the agent paid', async () => {
    const gateway = await start((await pgliteStorage()).env);
    const agent = newAgent();
    const { header } = await escrowPayment(gateway, agent);
    const before = { agent: usdc(agent), provider: usdc(provider()) };
    // The first claim is taken by the node and held; once the processor has asked about it (history
    // searched, absent), it lands just as the processor reads whether the escrow still exists.
    let held: string | null = null;
    let askedAbout = false;
    proxy.mode({
      kind: 'hook',
      handle: async ({ method, params }) => {
        if (method === 'sendTransaction' && held === null && isClaim(params)) {
          held = (params as [string])[0];
          return { kind: 'answer', result: bs58.encode(VersionedTransaction.deserialize(Buffer.from(held, 'base64')).signatures[0]) };
        }
        if (method === 'getSignatureStatuses' && held !== null) askedAbout = true;
        if (method === 'getAccountInfo' && askedAbout && held !== null) {
          const landing = held;
          held = 'landed';
          await rpc(world.localnet.url, 'sendTransaction', [landing, { encoding: 'base64' }]);
        }
        return { kind: 'forward' };
      },
    });
    const res = await postChat(gateway, chatBody(), { 'payment-signature': header });
    expect(res.status).toBe(200);
    await res.text();
    const settled = await finalReceipt(gateway, res.headers.get('x-gw-receipt') as string);
    expect(held).toBe('landed');
    const charged = BigInt(settled.amount_charged_atomic);
    expect(settled.status).toBe('settled');
    expect(charged).toBeGreaterThan(0n);
    expect(before.agent - usdc(agent)).toBe(charged);
    expect(usdc(provider()) - before.provider).toBe(charged);
  });

  it('an A2A escrow call whose provider answers after the request timeout, within the A2A serve bound, is served and claimed', async () => {
    // 2 s: on a loaded CI machine the deposit's checks before the serve can take most of 1 s.
    const gateway = await start({ ...(await pgliteStorage()).env, GW_REQUEST_TIMEOUT_SECS: '2', GW_A2A_SERVE_SECS: '20' });
    const quoted = (await a2aCall(gateway, 'message/send', userMessage('Say hello', { model: PAID_MODEL, max_tokens: 50 }))).body.result as A2ATaskBody;
    const required = quoted.status.message?.metadata?.['x402.payment.required'] as { accepts: Array<{ scheme: string; amount: string }> };
    const agent = newAgent();
    const before = usdc(agent);
    const amount = BigInt((required.accepts.find((entry) => entry.scheme === 'escrow') as { amount: string }).amount);
    const { header } = await escrowPaymentHeader(world, gateway, { amount, agent, resourceUrl: '/a2a' });
    // Past the request timeout and the confirmation window, when the reconciler ends receipts whose chat answer never began.
    world.upstreams.openai.script({ kind: 'reply', firstByteDelayMs: 4_000 });
    const payload = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as unknown;
    const paid = await a2aCall(gateway, 'message/send', userMessage('Say hello', { 'x402.payment.status': 'payment-submitted', 'x402.payment.payload': payload }, quoted.id));
    expect({ status: paid.status, error: paid.body.error }).toEqual({ status: 200, error: undefined });
    expect(paid.body.result?.status.state).toBe('completed');
    const [{ receipt }] = paid.body.result?.status.message?.metadata?.['x402.payment.receipts'] as Array<{ receipt: string }>;
    const settled = await finalReceipt(gateway, receipt);
    expect(settled.status).toBe('settled');
    expect(before - usdc(agent)).toBe(BigInt(settled.amount_charged_atomic));
  });

  describeWithPostgres('storage that loses an answer after its statement committed (PostgreSQL)', () => {
    let statements: PostgresStatementProxy;
    let database: { url: string; drop: () => Promise<void> };
    beforeAll(async () => {
      statements = await startPostgresStatementProxy({ host: '127.0.0.1', port: 5432 });
    });
    beforeEach(async () => {
      database = await createTestDatabase();
    });
    afterEach(async () => {
      await Promise.all(gateways.splice(0).map((gateway) => gateway.close()));
      await database.drop();
    });
    afterAll(() => statements.close());

    /** A gateway on the test database through the statement proxy; the claim of an answer whose instance died is due 4 s after its first content. */
    const startBehindProxy = (): Promise<RunningGateway> => {
      const url = new URL(database.url);
      url.port = String(statements.port);
      return start({ GW_STORAGE: undefined, DATABASE_URL: url.toString(), GW_STREAM_MAX_SECS: '2' });
    };
    const rows = async <T>(sql: string): Promise<T[]> => {
      const client = new Client({ connectionString: database.url });
      await client.connect();
      try {
        return (await client.query(sql)).rows as T[];
      } finally {
        await client.end();
      }
    };

    it('the claim row written at the first content, its answer lost: no content, the claim withdrawn with the receipt, nothing ever claimed', async () => {
      const gateway = await startBehindProxy();
      const agent = newAgent();
      const { header, serviceId, expirySlot } = await escrowPayment(gateway, agent);
      const before = { agent: usdc(agent), provider: usdc(provider()) };
      const lost = statements.loseAnswerOf('INSERT INTO escrow_claims');
      const res = await postChat(gateway, chatBody(), { 'payment-signature': header });
      const text = await res.text();
      await lost;
      expect(res.status).toBe(503);
      expect(text).not.toContain('fake openai reply');
      expect(JSON.parse(text)).toMatchObject({ error: { code: 'receipt.storage_unavailable', message: expect.stringMatching(/nothing will be claimed/) } });
      const ended = await finalReceipt(gateway, res.headers.get('x-gw-receipt') as string);
      expect(ended).toMatchObject({ status: 'not_charged', amount_charged_atomic: '0' });
      expect(await rows('SELECT status FROM escrow_claims')).toEqual([]);
      // Past when the claim would have been due, still nothing claimed; at expiry the agent refunds all of it.
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      expect(usdc(provider())).toBe(before.provider);
      await refundAtExpiry(world, agent, serviceId, expirySlot);
      expect(usdc(agent)).toBe(before.agent);
    }, 30_000);

    it('the claim row made completed, its answer lost: the receipt is settled from the claim, at what the agent paid, and its budget line follows', async () => {
      const gateway = await startBehindProxy();
      const agent = newAgent();
      const { header, amount } = await escrowPayment(gateway, agent);
      const budget = await fetch(`${gateway.url}/v1/wallets/${agent.publicKey.toBase58()}/budget`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ daily: Number(amount * 10n) / 1_000_000 }),
      });
      expect(budget.status).toBe(200);
      const before = { agent: usdc(agent), provider: usdc(provider()) };
      const lost = statements.loseAnswerOf("status = 'completed'");
      const res = await postChat(gateway, chatBody(), { 'payment-signature': header });
      expect(res.status).toBe(200);
      await res.text();
      await lost;
      const settled = await finalReceipt(gateway, res.headers.get('x-gw-receipt') as string);
      const charged = BigInt(settled.amount_charged_atomic);
      expect(settled.status).toBe('settled');
      expect(charged).toBeGreaterThan(0n);
      expect(before.agent - usdc(agent)).toBe(charged);
      expect(usdc(provider()) - before.provider).toBe(charged);
      expect(await rows('SELECT status, amount_atomic::text AS amount FROM budget_reservations')).toEqual([{ status: 'settled', amount: charged.toString() }]);
    }, 30_000);

    it('the claim row never written (its statement failed before the server): 503, receipt not_charged, nothing claimed', async () => {
      const gateway = await startBehindProxy();
      const agent = newAgent();
      const { header, serviceId, expirySlot } = await escrowPayment(gateway, agent);
      const before = usdc(agent);
      const failed = statements.failOf('INSERT INTO escrow_claims');
      const res = await postChat(gateway, chatBody(), { 'payment-signature': header });
      const text = await res.text();
      await failed;
      expect(res.status).toBe(503);
      expect(text).not.toContain('fake openai reply');
      expect(await finalReceipt(gateway, res.headers.get('x-gw-receipt') as string)).toMatchObject({ status: 'not_charged', amount_charged_atomic: '0' });
      expect(await rows('SELECT status FROM escrow_claims')).toEqual([]);
      await refundAtExpiry(world, agent, serviceId, expirySlot);
      expect(usdc(agent)).toBe(before);
    }, 30_000);
  });
});
