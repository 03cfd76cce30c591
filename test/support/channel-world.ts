import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import type { RunningGateway } from '../../src/gateway';
import type { PaidWorld } from './paid-gateway';
import { paymentInstructions, paymentTransaction, toBase64, transferChecked } from './payment-transactions';

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

/** A client-paid funding transfer of `amount` from `agent` to `payTo` (custody). */
export function fundingTransfer(world: PaidWorld, agent: Keypair, amount: bigint, payTo: Keypair['publicKey']): string {
  const parties = { mint: world.mint, payTo, payer: agent, gatewayFeePayer: world.feePayer, recentBlockhash: world.localnet.latestBlockhash().blockhash };
  return toBase64(paymentTransaction(parties, { instructions: paymentInstructions(transferChecked(parties, { amount })) }));
}

/** `POST /v1/channel/open` with `body`, as sent. */
export async function openChannel(gateway: RunningGateway, body: Record<string, string>): Promise<{ status: number; body: Record<string, string> }> {
  const res = await fetch(`${gateway.url}/v1/channel/open`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}

export async function readChannel(gateway: RunningGateway, id: string): Promise<Record<string, string>> {
  return (await (await fetch(`${gateway.url}/v1/channel/${id}`)).json()) as Record<string, string>;
}

/** Polls the channel until `done` holds of it (a draw is recorded, the close settled), or fails after about 10 s. */
export async function channelWhen(gateway: RunningGateway, id: string, done: (channel: Record<string, string>) => boolean): Promise<Record<string, string>> {
  for (let tries = 0; tries < 100; tries++) {
    const view = await readChannel(gateway, id);
    if (done(view)) return view;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`channel ${id} never reached the state waited for: ${JSON.stringify(await readChannel(gateway, id))}`);
}
