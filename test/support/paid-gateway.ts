import { randomBytes } from 'node:crypto';
import { Keypair, LAMPORTS_PER_SOL, PublicKey, TransactionInstruction } from '@solana/web3.js';
import bs58 from 'bs58';
import { decodePaymentRequiredHeader, encodePaymentSignature, type PaymentRequiredHeader } from '../../libs/x402';
import { startLocalnet, type Localnet } from '../../libs/solana-localnet';
import type { GatewayOptions } from '../../src/app.module';
import type { RunningGateway } from '../../src/gateway';
import type { SpendRecord } from '../../src/modules/billing/domain/spend-record';
import { SpendLog } from '../../src/modules/billing/ports/spend-log';
import { startTestGateway } from './gateway-harness';
import { paymentInstructions, paymentTransaction, toBase64, transferChecked, type PaymentParties } from './payment-transactions';
import { startUpstreams, type Upstreams } from './upstreams';

/** A paid model cheap enough for the official client's default $1 cap. */
export const PAID_MODEL = 'openai/gpt-4o-mini';
export { CHAT_PATH } from '../../src/modules/chat/application/completion-outcome';
import { expectOfficialX402Headers } from './x402-conformance';
import { CHAT_PATH } from '../../src/modules/chat/application/completion-outcome';

export interface PaidWorld {
  localnet: Localnet;
  upstreams: Upstreams;
  mint: PublicKey;
  recipient: Keypair;
  feePayer: Keypair;
  /** A funded payer: 1 SOL and 10 USDC. */
  payer: Keypair;
  /** With `startPaidWorld({ escrow: true })`: the emulated escrow program and the gateway's provider key (in `env`). */
  escrow: { programId: PublicKey; provider: Keypair } | null;
  /** Gateway environment for this chain, these wallets and the fake upstreams. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** The local chain with USDC at the mainnet mint, a recipient with its token account, a funded fee payer and payer. */
export async function startPaidWorld(options: { escrow?: boolean } = {}): Promise<PaidWorld> {
  const escrow = options.escrow ? { programId: Keypair.generate().publicKey, provider: Keypair.generate() } : null;
  const [localnet, upstreams] = await Promise.all([startLocalnet({ escrowProgramId: escrow?.programId }), startUpstreams()]);
  const mint = localnet.createUsdcMint();
  const [recipient, feePayer, payer] = [Keypair.generate(), Keypair.generate(), Keypair.generate()];
  localnet.createTokenAccount(recipient.publicKey);
  localnet.airdrop(feePayer.publicKey, LAMPORTS_PER_SOL);
  localnet.airdrop(payer.publicKey, LAMPORTS_PER_SOL);
  localnet.fundUsdc(payer.publicKey, 10_000_000n);
  // The provider pays the rent of its token account when a claim creates it.
  if (escrow) localnet.airdrop(escrow.provider.publicKey, LAMPORTS_PER_SOL / 10);
  // The suites pay for small answers (cents of a cent), far below escrow's default minimum quote, which has tests of its own.
  const escrowEnv: Record<string, string> = escrow
    ? { GW_ESCROW_PROGRAM_ID: escrow.programId.toBase58(), GW_ESCROW_PROVIDER_KEY: bs58.encode(escrow.provider.secretKey), GW_ESCROW_MIN_ATOMIC: '1' }
    : {};
  return {
    localnet,
    upstreams,
    mint,
    recipient,
    feePayer,
    payer,
    escrow,
    env: {
      ...escrowEnv,
      ...upstreams.env,
      GW_SOLANA_RPC_URL: localnet.url,
      GW_RECIPIENT_WALLET: recipient.publicKey.toBase58(),
      GW_FEE_PAYER_KEYS: bs58.encode(feePayer.secretKey),
      GW_RATE_LIMIT_MAX: '10000',
      GW_CACHE_TTL_SECS: '0',
    },
    close: async () => {
      await Promise.all([localnet.close(), upstreams.close()]);
    },
  };
}

export function chatBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: PAID_MODEL, messages: [{ role: 'user', content: 'Say hello' }], max_tokens: 50, ...overrides };
}

/** A chat request; its x402 headers, if any, are held to the official schemas. */
export async function postChat(gateway: RunningGateway, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<Response> {
  const res = await fetch(`${gateway.url}${CHAT_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal });
  expectOfficialX402Headers(res.headers);
  return res;
}

/** The 402 for `body`: its header form and quoted amount. */
export async function quote(gateway: RunningGateway, body: unknown): Promise<{ header: PaymentRequiredHeader; amount: bigint }> {
  const res = await postChat(gateway, body);
  if (res.status !== 402) throw new Error(`expected a 402 quote, got ${res.status}: ${await res.text()}`);
  const header = decodePaymentRequiredHeader(res.headers.get('payment-required') as string);
  return { header, amount: BigInt(header.accepts[0].amount) };
}

export interface SpecPayment {
  amount?: bigint;
  layout?: 'client-paid' | 'sponsored';
  /** Replaces the transaction's instructions (built against the world's parties). */
  instructions?: (parties: PaymentParties) => ReturnType<typeof transferChecked>[];
  /** Replaces the `accepted` fields sent (what the client claims it accepted). */
  accepted?: Partial<{ network: string; asset: string; payTo: string; amount: string; scheme: string }>;
  resourceUrl?: string;
  signers?: Keypair[];
  casing?: 'snake' | 'camel';
  payer?: Keypair;
  /** Signs against this instead of the chain's blockhash: a durable nonce, whose advance then leads `instructions`. */
  recentBlockhash?: string;
}

/**
 * A spec-form client: signs a TransferChecked for the quote (client-paid fees unless told
 * otherwise) against the chain's current blockhash, and encodes the PAYMENT-SIGNATURE header
 * (snake_case unless told otherwise).
 */
export function specPaymentHeader(world: PaidWorld, header: PaymentRequiredHeader, options: SpecPayment = {}): string {
  const offer = header.accepts[0];
  const amount = options.amount ?? BigInt(offer.amount);
  const payer = options.payer ?? world.payer;
  const parties: PaymentParties = {
    mint: world.mint,
    payTo: world.recipient.publicKey,
    payer,
    gatewayFeePayer: world.feePayer,
    recentBlockhash: options.recentBlockhash ?? world.localnet.latestBlockhash().blockhash,
  };
  const transaction = paymentTransaction(parties, {
    layout: options.layout ?? 'client-paid',
    instructions: [...(options.instructions ? options.instructions(parties) : paymentInstructions(transferChecked(parties, { amount }))), uniqueMemo()],
    signers: options.signers,
  });
  return encodePaymentSignature(
    {
      x402Version: 2,
      resource: { url: options.resourceUrl ?? header.resource.url, method: 'POST' },
      accepted: {
        scheme: (options.accepted?.scheme ?? 'exact') as 'exact',
        network: (options.accepted?.network ?? offer.network) as `${string}:${string}`,
        amount: options.accepted?.amount ?? amount.toString(),
        asset: options.accepted?.asset ?? offer.asset,
        payTo: options.accepted?.payTo ?? offer.payTo,
        maxTimeoutSeconds: offer.maxTimeoutSeconds,
      },
      payload: { kind: 'exact', transaction: toBase64(transaction) },
    },
    options.casing ?? 'snake',
  );
}

export async function startPaidGateway(world: PaidWorld, env: Record<string, string | undefined> = {}, options?: GatewayOptions): Promise<RunningGateway> {
  return startTestGateway({ ...world.env, ...env }, options);
}

const MEMO_PROGRAM = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

/** Random memo bytes, as the official client adds: the chain's blockhash stays fixed here, so two payments would otherwise be the same transaction. */
function uniqueMemo(): TransactionInstruction {
  return new TransactionInstruction({ programId: MEMO_PROGRAM, keys: [], data: Buffer.from(randomBytes(16).toString('hex')) });
}

/** Every spend row `gateway` writes from now on, kept as it is written (and stored as usual); empty it between tests with `rows.length = 0`. */
export function watchSpendRows(gateway: RunningGateway): SpendRecord[] {
  const rows: SpendRecord[] = [];
  const spendLog = gateway.app.get(SpendLog);
  const record = spendLog.record.bind(spendLog);
  spendLog.record = (entry) => {
    rows.push(entry);
    return record(entry);
  };
  return rows;
}
