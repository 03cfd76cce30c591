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
import { ChannelSigner, closeChannel, wrapFetchWithChannel } from '../libs/channel-client';
import { formatUsdc } from '../src/modules/billing/domain/atomic-usdc';
import { channelFundingTx, openChannel, redisAnswers, shownRedisUrl, untilChannelClosed } from '../test/support/channel-payments';
import { startDemoWorld } from './demo-world';

const DEPOSIT = 1_000_000n;
const REQUESTS = 20;

export async function channelDemo(line: (title: string, text: string) => void): Promise<void> {
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  if (!(await redisAnswers(redisUrl))) throw new DemoRefusal(`channels need Redis, and none answers at ${shownRedisUrl(redisUrl)}: start one, or set REDIS_URL`);
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

    const channel = await openChannel(gateway.url, agent, channelFundingTx(localnet, mint, custody.publicKey, agent, DEPOSIT));
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

    await closeChannel(fetch, gateway.url, channel.channel_id, signer);
    const final = await untilChannelClosed(gateway.url, channel.channel_id);
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
