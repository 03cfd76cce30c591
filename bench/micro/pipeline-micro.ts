/**
 * Microbenchmarks of the request pipeline's own steps (docs/performance.md): body validation, the router's
 * score, the cost estimate, the prompt guard, the cache key, and a payment's decode plus
 * verification; the guard, the score and the estimate also on 1 MB and 10 MB texts (docs/decisions.md, "Limits before the work").
 * Used by `npm run bench` and on its own: `npm run bench:micro`.
 */
import { Keypair, LAMPORTS_PER_SOL } from '@solana/web3.js';
import { startLocalnet } from '../../libs/solana-localnet';
import { decodePaymentSignature } from '../../libs/x402';
import { KeypairFeePayers } from '../../src/adapters/solana/keypair-fee-payers';
import { verifyExactTransfer } from '../../src/adapters/solana/exact-transfer-verifier';
import { loadConfig } from '../../src/config/load-config';
import { Secret } from '../../src/config/secret';
import { cacheKey } from '../../src/modules/chat/domain/cache-key';
import { priceCandidate, routingSignals } from '../../src/modules/chat/domain/chat-plan';
import { PromptGuard } from '../../src/modules/chat/domain/prompt-guard';
import { estimateInputTokens } from '../../src/modules/chat/domain/token-estimate';
import { parseChatRequest } from '../../src/modules/chat/http/chat-request-validator';
import { scoreComplexity } from '../../src/modules/routing/domain/complexity-scorer';
import { specPaymentHeader, type PaidWorld } from '../../test/support/paid-gateway';
import { microBench, printMicroTable, type MicroResult } from '../harness/micro-bench';
import { validateChatBodyAsDto } from './chat-body-dto';

const PROMPT_200 = 'Can you explain why my Python function returns None instead of the list? I call it with a list of ints and expect the squares back, step by step please. Thanks a lot!!';

export async function pipelineMicroBenchmarks(): Promise<MicroResult[]> {
  const body = {
    model: 'auto',
    messages: [
      { role: 'system', content: 'You are terse.' },
      { role: 'user', content: PROMPT_200 },
    ],
    max_tokens: 256,
    temperature: 0.2,
  };
  const request = parseChatRequest(JSON.parse(JSON.stringify(body)));
  const { config } = loadConfig({ GW_STORAGE: 'none', GW_RECIPIENT_WALLET: '11111111111111111111111111111111' });
  const model = config.catalog.model('openai/gpt-4o-mini');
  if (!model) throw new Error('catalog lacks openai/gpt-4o-mini');
  const guard = new PromptGuard();
  const texts = request.messages.map((m) => (typeof m.content === 'string' ? m.content : ''));
  const signals = routingSignals(request);
  const results = [
    microBench('validate a chat body (Ajv)', () => parseChatRequest(JSON.parse(JSON.stringify(body))), { iterations: 20_000 }),
    microBench('validate a chat body (class-validator DTO, fewer rules)', () => validateChatBodyAsDto(JSON.parse(JSON.stringify(body))), { iterations: 20_000 }),
    microBench('router score, 200-character prompt', () => scoreComplexity(signals), { iterations: 50_000 }),
    microBench('cost estimate (tokens and bigint price)', () => priceCandidate(model, routingSignals(request).inputTokens, request.max_tokens), { iterations: 50_000 }),
    microBench('prompt guard, 200-character prompt', () => guard.inspect(texts), { iterations: 20_000 }),
    microBench('cache key (SHA-256 of the request)', () => cacheKey('/v1/chat/completions', model.id, request, 256), { iterations: 50_000 }),
    ...largeTextBenchmarks(guard),
  ];
  results.push(await paymentVerification());
  return results;
}

const MB = 1024 * 1024;

/**
 * The text scans an unpaid request pays for, on the shape that once took the guard quadratic time ("aж"
 * and U+0482 repeated) at 1 MB and 10 MB of UTF-8: the guard (10 MB directly on the function, the
 * HTTP body limit being 10 MB for the whole body), the router's score and the estimate.
 */
function largeTextBenchmarks(guard: PromptGuard): MicroResult[] {
  const results: MicroResult[] = [];
  for (const [label, bytes, iterations] of [
    ['1 MB', MB, 10],
    ['10 MB', 10 * MB, 3],
  ] as const) {
    const text = 'aж\u0482'.repeat(Math.floor(bytes / Buffer.byteLength('aж\u0482')));
    const request = parseChatRequest({ model: 'auto', messages: [{ role: 'user', content: text }] });
    const signals = routingSignals(request);
    const options = { warmup: 1, iterations };
    results.push(
      microBench(`prompt guard, ${label} of script switching`, () => guard.inspect([text]), options),
      microBench(`router score, ${label} of script switching`, () => scoreComplexity(signals), options),
      microBench(`input-token estimate, ${label} of script switching`, () => estimateInputTokens(request), options),
    );
  }
  return results;
}

/** A client-paid and an official-shape sponsored payment, decoded and verified (no network). */
async function paymentVerification(): Promise<MicroResult> {
  const localnet = await startLocalnet();
  try {
    const mint = localnet.createUsdcMint();
    const [recipient, feePayer, payer] = [Keypair.generate(), Keypair.generate(), Keypair.generate()];
    localnet.airdrop(payer.publicKey, LAMPORTS_PER_SOL);
    const world = { localnet, mint, recipient, feePayer, payer } as unknown as PaidWorld;
    const offer = {
      scheme: 'exact',
      network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
      amount: '21505',
      asset: mint.toBase58(),
      payTo: recipient.publicKey.toBase58(),
      maxTimeoutSeconds: 300,
      extra: { decimals: 6 },
    };
    const header = specPaymentHeader(world, { x402Version: 2, resource: { url: '/v1/chat/completions', method: 'POST' }, accepts: [offer] } as never, { layout: 'sponsored', casing: 'camel' });
    const feePayers = new KeypairFeePayers([new Secret(feePayer.secretKey)]);
    const expectations = { payTo: offer.payTo, mint: offer.asset, minimumAmount: 21_505n, allowDurableNonce: false };
    return microBench(
      'payment decode + transaction verification',
      () => verifyExactTransfer((decodePaymentSignature(header).payload as { transaction: string }).transaction, expectations, feePayers),
      { warmup: 500, iterations: 5_000 },
    );
  } finally {
    await localnet.close();
  }
}

if (require.main === module) {
  pipelineMicroBenchmarks().then(printMicroTable, (err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
