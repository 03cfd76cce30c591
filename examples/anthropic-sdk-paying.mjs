// The @anthropic-ai/sdk, unmodified, paying the gateway's /v1/messages per request: x402's fetch
// wrapper answers each 402 quote with a USDC transfer on Solana and resends the request. The SDK
// wants an API key; the gateway asks none, so any string does.
//   npm install @anthropic-ai/sdk @x402/fetch @x402/svm @solana/kit bs58
//   PAYER_SECRET_KEY=<base58 wallet key> GW_SOLANA_RPC_URL=<rpc url> node anthropic-sdk-paying.mjs
import Anthropic from '@anthropic-ai/sdk';
import { createKeyPairSignerFromBytes } from '@solana/kit';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { ExactSvmScheme } from '@x402/svm';
import bs58 from 'bs58';

const network = process.env.GW_SOLANA_NETWORK ?? 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp';
const mint = process.env.GW_USDC_MINT ?? 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const wallet = await createKeyPairSignerFromBytes(bs58.decode(process.env.PAYER_SECRET_KEY ?? ''));

const payments = new x402Client()
  .register(network, new ExactSvmScheme(wallet, { rpcUrl: process.env.GW_SOLANA_RPC_URL }))
  // Pay in that USDC mint only, whatever a server asks for.
  .registerPolicy((_version, offers) => offers.filter((offer) => offer.asset === mint));

const anthropic = new Anthropic({
  baseURL: process.env.GATEWAY_URL ?? 'http://localhost:8402', // the SDK adds /v1/messages
  apiKey: 'x402',
  fetch: wrapFetchWithPayment(fetch, payments),
});

const message = await anthropic.messages.create({
  model: process.env.MODEL ?? 'claude-haiku-4-5', // a bare Anthropic id; a catalog id or alias works too
  max_tokens: 50,
  messages: [{ role: 'user', content: 'Say hello' }],
});
console.log(message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''));
