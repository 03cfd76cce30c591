import { Keypair, type PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { Redis } from 'ioredis';
import type { Localnet } from '../../libs/solana-localnet';
import type { PaidWorld } from './paid-gateway';
import { paymentInstructions, paymentTransaction, toBase64, transferChecked } from './payment-transactions';

/** Whether Redis answers PING at `url` within 2 s: channels need it, and the tools that open one say so in a line rather than fail at the first draw. */
export async function redisAnswers(url: string): Promise<boolean> {
  const redis = new Redis(url, { lazyConnect: true, connectTimeout: 2_000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return (await redis.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** `url` without its password, for a message. */
export function shownRedisUrl(url: string): string {
  return url.replace(/\/\/[^@]*@/, '//');
}

/** A channel's funding: `amount` USDC from `agent` to `custody`, the agent paying the network fee, against the chain's latest blockhash. */
export function channelFundingTx(localnet: Localnet, mint: PublicKey, custody: PublicKey, agent: Keypair, amount: bigint): string {
  const parties = { mint, payTo: custody, payer: agent, gatewayFeePayer: agent, recentBlockhash: localnet.latestBlockhash().blockhash };
  return toBase64(paymentTransaction(parties, { instructions: paymentInstructions(transferChecked(parties, { amount })) }));
}

/** A channel as `POST /v1/channel/open` and `GET /v1/channel/{id}` show it, as far as the tools read it. */
export interface ChannelView {
  channel_id: string;
  status: string;
  deposited: string;
  last_cumulative: string;
  refund: string;
  payout: string;
  close_signature?: string | null;
}

/** `POST /v1/channel/open` with `fundingTx`; throws unless the channel was opened (201). */
export async function openChannel(gatewayUrl: string, agent: Keypair, fundingTx: string): Promise<ChannelView> {
  const opened = await fetch(`${gatewayUrl}/v1/channel/open`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ agent_wallet: agent.publicKey.toBase58(), funding_tx: fundingTx }),
  });
  const channel = (await opened.json()) as ChannelView;
  if (opened.status !== 201) throw new Error(`the open was refused (${opened.status}): ${JSON.stringify(channel)}`);
  return channel;
}

/** `GET /v1/channel/{id}`. */
export async function readChannel(gatewayUrl: string, channelId: string): Promise<ChannelView> {
  return (await (await fetch(`${gatewayUrl}/v1/channel/${channelId}`)).json()) as ChannelView;
}

/** Polls the channel until `done` holds of it (a draw recorded, the close settled), or throws after `timeoutMs`. */
export async function channelWhen(gatewayUrl: string, channelId: string, done: (view: ChannelView) => boolean, timeoutMs = 15_000): Promise<ChannelView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const view = await readChannel(gatewayUrl, channelId);
    if (done(view)) return view;
    if (Date.now() > deadline) throw new Error(`channel ${channelId} did not reach the state waited for within ${timeoutMs} ms: ${JSON.stringify(view)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The channel once its close has settled: the close job runs in the background, on the gateway's work interval. */
export function untilChannelClosed(gatewayUrl: string, channelId: string, timeoutMs = 15_000): Promise<ChannelView> {
  return channelWhen(gatewayUrl, channelId, (view) => view.status === 'closed', timeoutMs);
}

/** The gateway's channel settings in the suites: custody's key, a small minimum deposit, a fast close worker. */
export function channelEnv(custody: Keypair, redisUrl: string): Record<string, string> {
  return { REDIS_URL: redisUrl, GW_CHANNEL_CUSTODY_KEY: bs58.encode(custody.secretKey), GW_CHANNEL_MIN_DEPOSIT_ATOMIC: '1000', GW_CHANNEL_WORK_INTERVAL_MS: '100' };
}

/** An agent with SOL for its fees and 10 USDC to fund channels. */
export function channelAgent(world: PaidWorld): Keypair {
  const agent = Keypair.generate();
  world.localnet.airdrop(agent.publicKey, 1_000_000_000);
  world.localnet.fundUsdc(agent.publicKey, 10_000_000n);
  return agent;
}
