// The openai SDK paying from a payment channel: one funding transfer opened the channel
// (POST /v1/channel/open), and each request is then paid off chain by a voucher the wrapper signs
// with the channel's session key; POST /v1/channel/close pays the rest back.
//   CHANNEL_ID=<from the open> SESSION_SECRET_KEY=<base58 key> GATEWAY_URL=<gateway>
import bs58 from 'bs58';
import OpenAI from 'openai';
import { ChannelSigner, wrapFetchWithChannel } from '../libs/channel-client';

export async function askThroughChannel(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const gateway = env.GATEWAY_URL ?? 'http://localhost:8402';
  const signer = new ChannelSigner(bs58.decode(env.SESSION_SECRET_KEY ?? ''));
  const openai = new OpenAI({
    baseURL: `${gateway}/v1`,
    apiKey: 'channel', // the SDK wants one; the gateway is paid per request instead
    fetch: wrapFetchWithChannel(fetch, { channelId: env.CHANNEL_ID ?? '', signer, gateway }),
  });
  const completion = await openai.chat.completions.create({
    model: env.MODEL ?? 'openai/gpt-4o-mini',
    messages: [{ role: 'user', content: 'Say hello' }],
    max_tokens: 50,
  });
  return completion.choices[0].message.content ?? '';
}
