/**
 * `npm run demo -- --channel`: a payment channel on the local chain. An agent funds a channel with
 * one transfer to the gateway's custody, pays 20 chat and Messages requests from it off chain with
 * the wrapper of libs/channel-client, and closes it: the gateway pays the unspent deposit back and
 * what was drawn to its recipient in one transaction. Prints the balances before and after, the
 * on-chain transactions (2 for 20 requests) and the refund. Channels need Redis: REDIS_URL, else
 * 127.0.0.1:6379. Everything stays on 127.0.0.1.
 */
import { Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import bs58 from 'bs58';
import { Redis } from 'ioredis';
import { ChannelSigner, closeChannel, wrapFetchWithChannel } from '../libs/channel-client';
import { formatUsdc } from '../src/modules/billing/domain/atomic-usdc';
import { paymentInstructions, paymentTransaction, toBase64, transferChecked } from '../test/support/payment-transactions';
import { startDemoWorld } from './demo-world';

const DEPOSIT = 1_000_000n;
const REQUESTS = 20;

export async function channelDemo(line: (title: string, text: string) => void): Promise<void> {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (!(await answers(redisUrl))) throw new DemoRefusal(`channels need Redis, and none answers at ${redisUrl.replace(/\/\/[^@]*@/, '//')}: start one, or set REDIS_URL`);
  const [custody, agent] = [Keypair.generate(), Keypair.generate()];
  const { localnet, fake, mint, recipient, gateway, close } = await startDemoWorld({
    env: () => ({ REDIS_URL: redisUrl, GW_CHANNEL_CUSTODY_KEY: bs58.encode(custody.secretKey), GW_CHANNEL_WORK_INTERVAL_MS: '100', GW_RATE_LIMIT_MAX: '1000' }),
    before: (world) => world.localnet.createTokenAccount(custody.publicKey),
  });
  localnet.airdrop(agent.publicKey, LAMPORTS_PER_SOL / 100); // the funding's network fee
  localnet.fundUsdc(agent.publicKey, 5_000_000n);
  const balances = (): string =>
    `agent ${formatUsdc(localnet.usdcBalance(agent.publicKey))} USDC, custody ${formatUsdc(localnet.usdcBalance(custody.publicKey))} USDC, gateway recipient ${formatUsdc(localnet.usdcBalance(recipient.publicKey))} USDC`;

  try {
    line('The gateway', `${gateway.url} (local chain ${localnet.url}, fake provider ${fake.url})`);
    line('Balances before', balances());
    const landedBefore = localnet.sentTransactions().length;

    const parties = { mint, payTo: custody.publicKey, payer: agent, gatewayFeePayer: agent, recentBlockhash: localnet.latestBlockhash().blockhash };
    const funding = toBase64(paymentTransaction(parties, { instructions: paymentInstructions(transferChecked(parties, { amount: DEPOSIT })) }));
    const opened = await fetch(`${gateway.url}/v1/channel/open`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ agent_wallet: agent.publicKey.toBase58(), funding_tx: funding }),
    });
    const channel = (await opened.json()) as { channel_id: string; deposited: string; status: string };
    if (opened.status !== 201) throw new Error(`the open was refused (${opened.status}): ${JSON.stringify(channel)}`);
    line(
      '1. The open (POST /v1/channel/open, HTTP 201)',
      `channel ${channel.channel_id}, ${formatUsdc(BigInt(channel.deposited))} USDC deposited with custody ${custody.publicKey.toBase58()}, ${channel.status}`,
    );

    const signer = new ChannelSigner(agent.secretKey);
    const paying = wrapFetchWithChannel(fetch, { channelId: channel.channel_id, signer, gateway: gateway.url });
    for (let request = 0; request < REQUESTS; request++) {
      const [path, body] =
        request % 2 === 0
          ? ['/v1/chat/completions', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: `Hello number ${request}` }], max_tokens: 50 }]
          : ['/v1/messages', { model: 'openai/gpt-4o-mini', messages: [{ role: 'user', content: `Hello number ${request}` }], max_tokens: 50 }];
      const answered = await paying(`${gateway.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (answered.status !== 200) throw new Error(`request ${request} was refused (${answered.status}): ${await answered.text()}`);
      await answered.text();
    }
    line(`2. ${REQUESTS} paid requests (chat and Messages, one voucher each)`, `drawn ${formatUsdc(paying.lastCumulative() ?? 0n)} USDC off chain; balances now ${balances()}`);

    const closing = await closeChannel(fetch, gateway.url, channel.channel_id, signer);
    let final = closing as { status: string; refund: string; payout: string; close_signature?: string | null };
    for (let tries = 0; tries < 100 && final.status !== 'closed'; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      final = (await (await fetch(`${gateway.url}/v1/channel/${channel.channel_id}`)).json()) as typeof final;
    }
    line(
      '3. The close (POST /v1/channel/close, then the settlement)',
      `${final.status}: refund ${formatUsdc(BigInt(final.refund))} USDC to the agent, ${formatUsdc(BigInt(final.payout))} USDC to the recipient, transaction ${final.close_signature}`,
    );
    line('On-chain transactions', `${localnet.sentTransactions().length - landedBefore} for ${REQUESTS} requests (the open and the close)`);
    line('Balances after', balances());
  } finally {
    await close();
  }
}

/** The demo cannot run here: said in one line, exit code 1. */
export class DemoRefusal extends Error {}

async function answers(url: string): Promise<boolean> {
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
