import { createCloseAccountInstruction, createTransferInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Connection, Keypair, LAMPORTS_PER_SOL, MessageV0, type PublicKey, VersionedTransaction } from '@solana/web3.js';
import type { RunningGateway } from '../../../src/gateway';
import { TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { escrowPaymentHeader, pollUntil, type EscrowReceiptBody } from '../../support/escrow-payments';
import { chatBody, postChat, startPaidGateway, startPaidWorld, type PaidWorld } from '../../support/paid-gateway';
import { startRpcFaultProxy, type RpcFaultProxy } from '../../support/rpc-fault-proxy';
import { serviceAvailable } from '../../support/services';
import { pgliteStorage, postgresStorage, type TestStorage } from '../../support/storage-env';

interface HealthBody {
  status: string;
  claims: { failed: number; pending_in_queue: number; completed: number };
  fee_payer_wallets: number;
  breaker: { state: 'open' | 'closed'; open_until: string | null; samples: number; failures: number };
}

const postgresDescribe = serviceAvailable('postgres') ? describe : describe.skip;

/** Every window the claim processor has, shortened so that the suite runs in seconds. */
const FAST_CLAIMS = { GW_CLAIM_INTERVAL_MS: '50', GW_CLAIM_RETRY_BASE_MS: '20', GW_CLAIM_BREAKER_RESET_SECS: '2', GW_CLAIM_BREAKER_WINDOW_SECS: '30', GW_LEASE_TTL_SECS: '2' };

/**
 * A world (localnet, upstreams) whose chain the gateways reach only through a fault proxy, and
 * helpers to pay escrow requests and read receipts, health and landed claims.
 */
function escrowFaultWorld() {
  const state: { world?: PaidWorld; proxy?: RpcFaultProxy } = {};
  beforeAll(async () => {
    state.world = await startPaidWorld({ escrow: true });
    state.proxy = await startRpcFaultProxy(state.world.localnet.url);
  });
  afterEach(() => state.proxy?.mode({ kind: 'pass' }));
  afterAll(async () => {
    await state.proxy?.close();
    await state.world?.close();
  });

  const world = (): PaidWorld => state.world as PaidWorld;
  const proxy = (): RpcFaultProxy => state.proxy as RpcFaultProxy;
  const provider = (): Keypair => (world().escrow as NonNullable<PaidWorld['escrow']>).provider;

  /** Whether a sendTransaction's transaction is a claim: claims are paid by the gateway's fee payer, deposits by the agent. */
  const isClaim = (params: unknown): boolean => {
    const [encoded] = params as [string];
    return VersionedTransaction.deserialize(Buffer.from(encoded, 'base64')).message.staticAccountKeys[0].equals(world().feePayer.publicKey);
  };

  const gatewayEnv = (storage: TestStorage, env: Record<string, string> = {}) => ({ ...storage.env, GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN, GW_SOLANA_RPC_URL: proxy().url, ...FAST_CLAIMS, ...env });

  /** One paid escrow chat request at the quoted amount. */
  const pay = async (gateway: RunningGateway, agent?: Keypair): Promise<Response> => {
    const challenge = await postChat(gateway, chatBody());
    expect(challenge.status).toBe(402);
    const { accepts } = (await challenge.json()) as { accepts: Array<{ scheme: string; amount: string }> };
    const amount = BigInt((accepts.find((entry) => entry.scheme === 'escrow') as { amount: string }).amount);
    const { header } = await escrowPaymentHeader(world(), gateway, { amount, agent });
    return postChat(gateway, chatBody(), { 'payment-signature': header });
  };

  /** Pays and expects the answer; returns the receipt's path. */
  const paid = async (gateway: RunningGateway, agent?: Keypair): Promise<string> => {
    const res = await pay(gateway, agent);
    expect(res.status).toBe(200);
    await res.text();
    return res.headers.get('x-gw-receipt') as string;
  };

  // The receipt route allows 20 reads a minute per client (RECEIPT_RATE_LIMIT): the tests poll the admin health route and read receipts once.
  const receipt = async (gateway: RunningGateway, path: string): Promise<EscrowReceiptBody> => {
    const res = await fetch(`${gateway.url}${path}`);
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as EscrowReceiptBody;
  };
  const receipts = (gateway: RunningGateway, paths: string[]): Promise<EscrowReceiptBody[]> => Promise.all(paths.map((path) => receipt(gateway, path)));
  /**
   * The receipts once none is pending. The claim queue counts a claim done a moment before its
   * receipt is written, so this polls, slowly enough to stay within the receipt route's limit.
   */
  const finishedReceipts = (gateways: RunningGateway[], paths: string[]): Promise<EscrowReceiptBody[]> =>
    pollUntil(
      () => Promise.all(paths.map((path, index) => receipt(gateways[index % gateways.length], path))),
      (bodies) => bodies.every((body) => body.status !== 'pending'),
      5_000,
      500,
    );
  const health = async (gateway: RunningGateway): Promise<HealthBody> =>
    (await (await fetch(`${gateway.url}/v1/escrow/health`, { headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` } })).json()) as HealthBody;
  const providerUsdc = (): bigint => world().localnet.usdcBalance(provider().publicKey);
  const claimedSum = (bodies: EscrowReceiptBody[]): bigint => bodies.reduce((sum, body) => sum + BigInt(body.amount_charged_atomic), 0n);

  /** The claims (transactions paid by the gateway's fee payer) that landed on the localnet, with the escrow each names. */
  const landedClaims = async (escrows: string[]): Promise<Array<{ signature: string; escrow: string; err: unknown }>> => {
    const connection = new Connection(world().localnet.url, 'confirmed');
    const found: Array<{ signature: string; escrow: string; err: unknown }> = [];
    for (const sent of world().localnet.sentTransactions()) {
      const landed = await connection.getTransaction(sent.signature, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
      if (!landed) throw new Error(`getTransaction knows no ${sent.signature}`);
      const keys = landed.transaction.message.staticAccountKeys;
      if (!keys[0].equals(world().feePayer.publicKey)) continue;
      const escrow = escrows.find((address) => keys.some((key) => key.toBase58() === address));
      if (escrow) found.push({ signature: sent.signature, escrow, err: sent.err });
    }
    return found;
  };

  /** A new agent with SOL for fees and rents and `usdc` atomic units. */
  const newAgent = (usdc: bigint): Keypair => {
    const agent = Keypair.generate();
    world().localnet.airdrop(agent.publicKey, LAMPORTS_PER_SOL);
    world().localnet.fundUsdc(agent.publicKey, usdc);
    return agent;
  };

  return { world, proxy, provider, isClaim, gatewayEnv, pay, paid, receipts, finishedReceipts, health, providerUsdc, claimedSum, landedClaims, newAgent };
}

describe('escrow claims under RPC faults (spec 3.2; docs/decisions.md, "Escrow")', () => {
  describe('the claim breaker', () => {
    const t = escrowFaultWorld();
    let gateway: RunningGateway;

    beforeAll(async () => {
      gateway = await startPaidGateway(t.world(), t.gatewayEnv(await pgliteStorage()));
    });
    afterAll(() => gateway?.close());

    it('opens while claim sends fail at the RPC, holds the claims, and lets them through after its reset', async () => {
      const providerBefore = t.providerUsdc();
      t.proxy().mode({ kind: 'fail', methods: ['sendTransaction'], when: t.isClaim });
      const paths: string[] = [];
      for (let i = 0; i < 4; i++) paths.push(await t.paid(gateway));

      const open = await pollUntil(
        () => t.health(gateway),
        (body) => body.breaker.state === 'open' && body.claims.pending_in_queue === 4,
      );
      expect(open).toMatchObject({ status: 'degraded', claims: { pending_in_queue: 4, failed: 0, completed: 0 }, breaker: { state: 'open' } });
      expect(open.breaker.samples).toBeGreaterThanOrEqual(4);
      expect(open.breaker.failures * 2).toBeGreaterThan(open.breaker.samples);
      const openUntil = Date.parse(open.breaker.open_until as string);
      expect(openUntil).toBeGreaterThan(Date.now() - 100);
      expect((await t.receipts(gateway, paths)).map((body) => body.status)).toEqual(['pending', 'pending', 'pending', 'pending']);

      t.proxy().mode({ kind: 'pass' });
      const healthy = await pollUntil(
        () => t.health(gateway),
        (body) => body.claims.completed === 4,
      );
      // Nothing is claimed while the breaker is open: the claims landed after its reset, not at the switch.
      expect(Date.now()).toBeGreaterThanOrEqual(openUntil);
      expect(healthy).toMatchObject({ status: 'ok', claims: { pending_in_queue: 0, failed: 0, completed: 4 }, breaker: { state: 'closed', open_until: null } });
      const finished = await t.finishedReceipts([gateway], paths);
      expect(finished.map((body) => body.status)).toEqual(['settled', 'settled', 'settled', 'settled']);
      const sum = t.claimedSum(finished);
      expect(sum).toBeGreaterThan(0n);
      expect(finished.every((body) => body.escrow?.claimed_atomic === body.amount_charged_atomic)).toBe(true);
      expect(t.providerUsdc() - providerBefore).toBe(sum);
    });
  });

  const restartSuite = (name: string, storage: () => Promise<TestStorage>, describeFn: jest.Describe) =>
    describeFn(`a restart on the same storage (${name})`, () => {
      const t = escrowFaultWorld();
      let opened: TestStorage | undefined;
      let gateway: RunningGateway | undefined;

      afterAll(async () => {
        await gateway?.close();
        await opened?.drop();
      });

      it('claims queued by a gateway whose claim sends failed are completed by the next one', async () => {
        opened = await storage();
        const providerBefore = t.providerUsdc();
        let claimSends = 0;
        t.proxy().mode({
          kind: 'fail',
          methods: ['sendTransaction'],
          when: (params) => {
            const claim = t.isClaim(params);
            if (claim) claimSends += 1;
            return claim;
          },
        });
        const first = await startPaidGateway(t.world(), t.gatewayEnv(opened));
        const paths = [await t.paid(first), await t.paid(first)];
        // Both claims have been tried (and failed) at least once before the first gateway goes.
        await pollUntil(
          async () => claimSends,
          (count) => count >= 2,
        );
        expect((await t.health(first)).claims).toEqual({ failed: 0, pending_in_queue: 2, completed: 0 });
        await first.close();
        expect(claimSends).toBeGreaterThanOrEqual(2);

        t.proxy().mode({ kind: 'pass' });
        gateway = await startPaidGateway(t.world(), t.gatewayEnv(opened));
        const healthy = await pollUntil(
          () => t.health(gateway as RunningGateway),
          (body) => body.claims.completed === 2,
        );
        expect(healthy).toMatchObject({ status: 'ok', claims: { pending_in_queue: 0, completed: 2, failed: 0 } });
        const finished = await t.finishedReceipts([gateway], paths);
        expect(finished.map((body) => body.status)).toEqual(['settled', 'settled']);
        expect(t.providerUsdc() - providerBefore).toBe(t.claimedSum(finished));
      });
    });

  restartSuite('PGlite data dir', pgliteStorage, describe);
  restartSuite('PostgreSQL', postgresStorage, postgresDescribe);

  postgresDescribe('two instances sharing one PostgreSQL database', () => {
    const t = escrowFaultWorld();
    let opened: TestStorage | undefined;
    const gateways: RunningGateway[] = [];

    beforeAll(async () => {
      opened = await postgresStorage();
      const env = t.gatewayEnv(opened, { GW_CLAIM_INTERVAL_MS: '20' });
      gateways.push(await startPaidGateway(t.world(), env), await startPaidGateway(t.world(), env));
    });
    afterAll(async () => {
      await Promise.all(gateways.map((gateway) => gateway.close()));
      await opened?.drop();
    });

    it('claims every escrow exactly once', async () => {
      const providerBefore = t.providerUsdc();
      const paths: string[] = [];
      for (let i = 0; i < 10; i++) paths.push(await t.paid(gateways[i % 2]));

      const counts = await pollUntil(
        () => t.health(gateways[1]),
        (body) => body.claims.completed === 10,
      );
      expect(counts.claims).toEqual({ failed: 0, pending_in_queue: 0, completed: 10 });
      const finished = await t.finishedReceipts(gateways, paths);
      expect(finished.map((body) => body.status)).toEqual(Array(10).fill('settled'));
      const sum = t.claimedSum(finished);
      expect(t.providerUsdc() - providerBefore).toBe(sum);

      const escrows = finished.map((body) => body.escrow?.address as string);
      expect(new Set(escrows).size).toBe(10);
      const claims = await t.landedClaims(escrows);
      // One landed claim per escrow, none failed on chain, and it is the one each receipt names.
      expect(claims.filter((claim) => claim.err !== null)).toEqual([]);
      expect(claims.map((claim) => claim.escrow).sort()).toEqual([...escrows].sort());
      expect(finished.map((body) => claims.find((claim) => claim.escrow === body.escrow?.address)?.signature)).toEqual(finished.map((body) => body.escrow?.claim_signature));
    });
  });

  describe('a claim the program rejects', () => {
    const t = escrowFaultWorld();
    let gateway: RunningGateway;

    beforeAll(async () => {
      gateway = await startPaidGateway(t.world(), t.gatewayEnv(await pgliteStorage()));
    });
    afterAll(() => gateway?.close());

    /** Empties the agent's USDC account into `to`'s and closes it, with real SPL Token transactions sent straight to the localnet. */
    const closeUsdcAccount = async (agent: Keypair, to: PublicKey): Promise<void> => {
      const world = t.world();
      const source = getAssociatedTokenAddressSync(world.mint, agent.publicKey);
      const destination = getAssociatedTokenAddressSync(world.mint, to);
      const rest = world.localnet.usdcBalance(agent.publicKey);
      const transaction = new VersionedTransaction(
        MessageV0.compile({
          payerKey: agent.publicKey,
          recentBlockhash: world.localnet.latestBlockhash().blockhash,
          instructions: [createTransferInstruction(source, destination, agent.publicKey, rest), createCloseAccountInstruction(source, agent.publicKey, agent.publicKey)],
        }),
      );
      transaction.sign([agent]);
      const connection = new Connection(world.localnet.url, 'confirmed');
      const signature = await connection.sendRawTransaction(transaction.serialize());
      const [status] = (await connection.getSignatureStatuses([signature])).value;
      expect(status?.err ?? null).toBeNull();
      expect(await connection.getAccountInfo(source)).toBeNull();
    };

    it('fails alone: the receipt says failed, the breaker stays closed, the agent is barred and others still pay with escrow', async () => {
      const world = t.world();
      const agent = t.newAgent(5_000_000n);
      let heldClaims = 0;
      // Hold the claims at the RPC until the agent's account is gone.
      t.proxy().mode({
        kind: 'silent',
        methods: ['sendTransaction'],
        when: (params) => {
          const claim = t.isClaim(params);
          if (claim) heldClaims += 1;
          return claim;
        },
      });
      const path = await t.paid(gateway, agent);
      await pollUntil(
        async () => heldClaims,
        (count) => count >= 1,
      );
      expect(heldClaims).toBe(1);
      await closeUsdcAccount(agent, world.recipient.publicKey);
      t.proxy().mode({ kind: 'pass' });

      const health = await pollUntil(
        () => t.health(gateway),
        (body) => body.claims.failed === 1,
      );
      const [failed] = await t.finishedReceipts([gateway], [path]);
      expect(failed).toMatchObject({ status: 'failed', amount_charged_atomic: '0' });
      // The escrow stays, for the agent to refund at expiry.
      expect(world.localnet.escrowAccount(failed.escrow?.address as string)).not.toBeNull();
      expect(health).toMatchObject({ status: 'ok', claims: { failed: 1, pending_in_queue: 0 }, breaker: { state: 'closed', failures: 0 } });

      // Funded again, so that only the bar can refuse its next deposit.
      world.localnet.fundUsdc(agent.publicKey, 5_000_000n);
      const barred = await t.pay(gateway, agent);
      expect(barred.status).toBe(403);
      expect(((await barred.json()) as { error: { code: string } }).error.code).toBe('payment.escrow_barred');

      const other = await t.paid(gateway);
      const after = await pollUntil(
        () => t.health(gateway),
        (body) => body.claims.completed === 1,
      );
      expect(after).toMatchObject({ status: 'ok', claims: { failed: 1, pending_in_queue: 0, completed: 1 }, breaker: { state: 'closed' } });
      expect((await t.finishedReceipts([gateway], [other]))[0].status).toBe('settled');
    });
  });
});
