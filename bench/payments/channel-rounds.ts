/**
 * What `npm run bench:payments -- --channel` adds to payment-bench.ts: a channel drawn beside the
 * `exact` and `escrow` rounds, and the network fees of each scheme read from the local chain's
 * balances (docs/performance.md, "Channels: draw latency and network fees").
 */
import { Keypair, LAMPORTS_PER_SOL, type PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { ChannelSigner, closeChannel, wrapFetchWithChannel, type Fetch } from '../../libs/channel-client';
import type { RunningGateway } from '../../src/gateway';
import { channelFundingTx, openChannel, redisAnswers, shownRedisUrl, untilChannelClosed } from '../../test/support/channel-payments';
import { escrowPda } from '../../libs/escrow';
import { escrowConfig, escrowPaymentHeader, type EscrowConfigView } from '../../test/support/escrow-payments';
import type { PaymentRequiredHeader } from '../../libs/x402';
import { CHAT_PATH, chatBody, postChat, specPaymentHeader, type PaidWorld } from '../../test/support/paid-gateway';

/**
 * The gateway keeps its Redis keys under a fixed `gw:` prefix, so the bench keeps to a database of
 * its own on whatever Redis it is given: on the shared one at 127.0.0.1:6379 the test suites empty
 * database 0 and `npm run bench` database 14 (docs/performance.md). A URL that names a database is
 * taken as it is.
 */
const BENCH_REDIS_DB = '11';
const USDC_PER_SOL = 150;
/** GW_CHANNEL_MIN_DEPOSIT_ATOMIC's default. */
const CHANNEL_MIN_DEPOSIT = 1_000_000n;

/** Redis for `--channel`, or null after saying in one line why there is none. */
export async function benchRedisUrl(): Promise<string | null> {
  const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  if (url.pathname === '' || url.pathname === '/') url.pathname = `/${BENCH_REDIS_DB}`;
  if (await redisAnswers(url.href)) return url.href;
  console.error(`--channel needs Redis, and none answers at ${shownRedisUrl(url.href)}: start one, or set REDIS_URL`);
  return null;
}

/** A custody wallet with its USDC token account (without it channels stay off), and the gateway environment that turns channels on. */
export function channelCustody(world: PaidWorld, redisUrl: string): { custody: Keypair; env: Record<string, string> } {
  const custody = Keypair.generate();
  world.localnet.createTokenAccount(custody.publicKey);
  return { custody, env: { REDIS_URL: redisUrl, GW_CHANNEL_CUSTODY_KEY: bs58.encode(custody.secretKey), GW_CHANNEL_WORK_INTERVAL_MS: '100' } };
}

/** A client with 1 SOL (fees, and escrow deposits' rent until their claims give it back) and `usdc` atomic USDC; a sponsored payer gets no SOL, as it would have none. */
export function newClient(world: PaidWorld, usdc: bigint, lamports = LAMPORTS_PER_SOL): Keypair {
  const client = Keypair.generate();
  if (lamports > 0) world.localnet.airdrop(client.publicKey, lamports);
  world.localnet.fundUsdc(client.publicKey, usdc);
  return client;
}

/** One open channel drawn by libs/channel-client's wrapper; each draw is timed from its voucher's send, as `exact` is from its payment's. */
export class BenchChannel {
  private voucherSent = Number.NaN;
  /** Draws the wrapper paid with more than one voucher (a busy channel waited for, a resync): their wait is in their time. */
  retriedDraws = 0;
  private vouchers = 0;

  private constructor(
    private readonly gateway: RunningGateway,
    readonly id: string,
    private readonly signer: ChannelSigner,
    private readonly paying: Fetch,
  ) {}

  static async open(world: PaidWorld, gateway: RunningGateway, custody: PublicKey, agent: Keypair, deposit: bigint): Promise<BenchChannel> {
    const channel = await openChannel(gateway.url, agent, channelFundingTx(world.localnet, world.mint, custody, agent, deposit));
    const signer = new ChannelSigner(agent.secretKey);
    let bench: BenchChannel | null = null;
    const timed: Fetch = (input, init) => {
      if (bench && new Headers(init?.headers).has('payment-signature')) bench.sentVoucher();
      return fetch(input, init);
    };
    bench = new BenchChannel(gateway, channel.channel_id, signer, wrapFetchWithChannel(timed, { channelId: channel.channel_id, signer, gateway: gateway.url, lastCumulative: 0n }));
    return bench;
  }

  private sentVoucher(): void {
    this.vouchers++;
    if (Number.isNaN(this.voucherSent)) this.voucherSent = performance.now();
  }

  /** One chat request paid by a voucher, read to its end; ms from the voucher's send (the unpaid 402 before it, a quote, is not counted). */
  async draw(): Promise<number> {
    this.voucherSent = Number.NaN;
    this.vouchers = 0;
    const res = await this.paying(`${this.gateway.url}${CHAT_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(chatBody()) });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`a channel draw answered ${res.status}`);
    if (this.vouchers > 1) this.retriedDraws++;
    return performance.now() - this.voucherSent;
  }

  /** Closes the channel and waits for its settlement to land. */
  async close(): Promise<void> {
    await closeChannel(fetch, this.gateway.url, this.id, this.signer);
    await untilChannelClosed(this.gateway.url, this.id);
  }
}

/**
 * Escrow claims land after the answer, off the request's path: waits until each deposit's escrow
 * account is closed on chain, which its claim does (the receipts route is too rate limited to poll).
 */
export async function untilClaimed(world: PaidWorld, escrows: PublicKey[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (escrows.some((escrow) => world.localnet.escrowAccount(escrow) !== null)) {
    if (Date.now() > deadline) throw new Error('escrow claims did not land within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A signed escrow deposit of `amount` by `agent`, and the escrow account its claim will close. */
export async function escrowDeposit(world: PaidWorld, gateway: RunningGateway, agent: Keypair, amount: bigint, config: EscrowConfigView): Promise<{ header: string; escrow: PublicKey }> {
  const { header, serviceId } = await escrowPaymentHeader(world, gateway, { agent, amount, config });
  return { header, escrow: escrowPda((world.escrow as NonNullable<PaidWorld['escrow']>).programId, agent.publicKey, serviceId)[0] };
}

/** An escrow-paid chat request with `header`, read to its end. */
export async function escrowPaidChat(gateway: RunningGateway, header: string): Promise<void> {
  const res = await postChat(gateway, chatBody(), { 'payment-signature': header });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`an escrow-paid request answered ${res.status}`);
}

export interface FeeRow {
  scheme: string;
  requests: number;
  transactions: number;
  gateway: bigint;
  client: bigint;
  /** The channel's open and close are counted once per 1,000 requests, not scaled by its draws. */
  perThousand: boolean;
}

/**
 * Network fees counted on the local chain: the SOL the gateway's wallets (fee payer, custody,
 * escrow provider) and the scheme's own client lost over `requests` requests, once their
 * transactions all landed, and how many transactions landed meanwhile. Each scheme runs alone with
 * a client of its own, so no other request's fee is in its balances; escrow deposits' rent comes
 * back to the agent with the claim, so what is left is fees.
 */
export async function measureNetworkFees(world: PaidWorld, gateway: RunningGateway, custody: Keypair, header: PaymentRequiredHeader, requests: number): Promise<FeeRow[]> {
  const escrow = world.escrow;
  if (!escrow) throw new Error('startPaidWorld({ escrow: true }) first');
  const amount = BigInt(header.accepts[0].amount);
  const gatewayWallets = [world.feePayer.publicKey, custody.publicKey, escrow.provider.publicKey];
  const lamports = (wallets: PublicKey[]) => wallets.reduce((sum, wallet) => sum + world.localnet.solBalance(wallet), 0n);
  const rows: FeeRow[] = [];
  const measure = async (scheme: string, client: Keypair, run: () => Promise<void>, perThousand = false): Promise<void> => {
    const [gatewayBefore, clientBefore, landedBefore] = [lamports(gatewayWallets), lamports([client.publicKey]), world.localnet.sentTransactions().length];
    await run();
    const transactions = world.localnet.sentTransactions().length - landedBefore;
    rows.push({ scheme, requests, transactions, gateway: gatewayBefore - lamports(gatewayWallets), client: clientBefore - lamports([client.publicKey]), perThousand });
  };
  const exactRequests = (layout: 'sponsored' | 'client-paid', payer: Keypair) => async () => {
    for (let i = 0; i < requests; i++) {
      const res = await postChat(gateway, chatBody(), { 'payment-signature': specPaymentHeader(world, header, { layout, payer }) });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`an exact ${layout} request answered ${res.status}`);
    }
  };
  const usdc = amount * BigInt(requests) * 2n + CHANNEL_MIN_DEPOSIT;

  const sponsored = newClient(world, usdc, 0);
  await measure('exact, sponsored', sponsored, exactRequests('sponsored', sponsored));
  const clientPaid = newClient(world, usdc);
  await measure('exact, client-paid', clientPaid, exactRequests('client-paid', clientPaid));
  const agent = newClient(world, usdc);
  await measure('escrow', agent, async () => {
    const config = await escrowConfig(gateway);
    const escrows: PublicKey[] = [];
    for (let i = 0; i < requests; i++) {
      const { header: deposit, escrow: account } = await escrowDeposit(world, gateway, agent, amount, config);
      await escrowPaidChat(gateway, deposit);
      escrows.push(account);
    }
    await untilClaimed(world, escrows);
  });
  const channelAgent = newClient(world, usdc);
  await measure(
    'channel (open + close)',
    channelAgent,
    async () => {
      const channel = await BenchChannel.open(world, gateway, custody.publicKey, channelAgent, channelDeposit(amount, requests));
      for (let i = 0; i < requests; i++) await channel.draw();
      await channel.close();
    },
    true,
  );
  return rows;
}

/** Enough for `draws` draws of `amount`, and at least the gateway's default minimum deposit. */
export function channelDeposit(amount: bigint, draws: number): bigint {
  const needed = amount * BigInt(draws) * 2n;
  return needed > CHANNEL_MIN_DEPOSIT ? needed : CHANNEL_MIN_DEPOSIT;
}

/** The rows per 1,000 requests: exact and escrow scaled from their requests, the channel's one open and close as they are. */
export function printNetworkFees(rows: FeeRow[]): void {
  const usdc = (lamports: bigint) => ((Number(lamports) / LAMPORTS_PER_SOL) * USDC_PER_SOL).toFixed(4);
  console.table(
    rows.map((row) => {
      const scale = (value: bigint | number) => (row.perThousand ? BigInt(value) : (BigInt(value) * 1000n) / BigInt(row.requests));
      const [gateway, client] = [scale(row.gateway), scale(row.client)];
      return {
        scheme: row.scheme,
        'transactions per 1,000': scale(row.transactions).toString(),
        'gateway pays, lamports per 1,000': gateway.toString(),
        'client pays, lamports per 1,000': client.toString(),
        'gateway ~USDC': usdc(gateway),
        'client ~USDC': usdc(client),
      };
    }),
  );
}
