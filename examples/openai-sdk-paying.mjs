// The openai SDK, unmodified, paying the gateway per request: x402's fetch wrapper answers each 402
// quote with a USDC transfer on Solana and resends the request. No account, no API key.
//   npm install openai @x402/fetch @x402/svm @solana/kit bs58
//   PAYER_SECRET_KEY=<base58 wallet key> GW_SOLANA_RPC_URL=<rpc url> node openai-sdk-paying.mjs
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm';
import bs58 from 'bs58';
import OpenAI from 'openai';

const network = process.env.GW_SOLANA_NETWORK ?? 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const mint = process.env.GW_USDC_MINT ?? 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const wallet = await createKeyPairSignerFromBytes(bs58.decode(process.env.PAYER_SECRET_KEY ?? ''));

const payments = new x402Client()
  .register(network, new ExactSvmScheme(wallet, { rpcUrl: process.env.GW_SOLANA_RPC_URL }))
  // Pay in that USDC mint only, whatever a server asks for.
  .registerPolicy((_version, offers) => offers.filter((offer) => offer.asset === mint));

const openai = new OpenAI({
  baseURL: `${process.env.GATEWAY_URL ?? 'http://localhost:8402'}/v1`,
  apiKey: 'x402', // the SDK wants one; the gateway is paid per request instead
  fetch: wrapFetchWithPayment(fetch, payments),
});

const completion = await openai.chat.completions.create({
  model: process.env.MODEL ?? 'openai/gpt-4o-mini',
  messages: [{ role: 'user', content: 'Say hello' }],
  max_tokens: 50,
});
console.log(completion.choices[0].message.content);
