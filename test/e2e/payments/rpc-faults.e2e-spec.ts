import type { Keypair } from '@solana/web3.js';
import type { RunningGateway } from '../../../src/gateway';
import type { Behaviour } from '../../fakes/behaviour';
import { chatBody, PAID_MODEL, postChat, quote, specPaymentHeader, type PaidWorld } from '../../support/paid-gateway';
import type { RpcFaultProxy } from '../../support/rpc-fault-proxy';
import {
  errorEvents,
  FINAL_STATUSES,
  fundedPayer,
  readReceiptsUntil,
  receiptPathOf,
  sleep,
  sseDataOf,
  streamedContent,
  until,
  type ReceiptRead,
  type ReceiptView,
} from '../../support/settlement-probes';
import { expectAll, useSettlementWorld } from '../../support/settlement-world';
import { migratedDataDir } from '../../support/pglite-data-dir';

/**
 * The local chain's RPC made slow, flaky or silent while paid requests are in flight (docs/decisions.md,
 * "Money moves exactly once (1 of 2)"):
 * every paid request ends with its payer charged exactly once for an answer it received (whole, or
 * in part when the provider failed mid-answer, as the receipt says), or not at all.
 *
 * Each test runs one gateway (embedded PGlite receipts) whose GW_SOLANA_RPC_URL is the fault proxy,
 * and ten paid requests, each from a payer of its own so that balances are independent: JSON and
 * streams, client-paid and sponsored fees, and some whose provider cuts the answer after its first
 * content. The cut ones ask for `deepseek/deepseek-chat`, served here by a second OpenAI-format fake
 * (the `nvidia` one) that cuts every answer, so which requests are cut does not depend on the order
 * in which the requests reach a provider. Once the fault is over, every issued receipt is read until
 * it is final, then money, answers and receipts are checked against each other.
 */

const CUT_MODEL = 'deepseek/deepseek-chat';
/** How long the receipts may take to become final once the fault is over. */
const FINAL_WITHIN_MS = 40_000;
const UNCONFIRMED = 'could not be confirmed';

type Layout = 'client-paid' | 'sponsored';

interface Shape {
  stream: boolean;
  layout: Layout;
  /** The provider stops after its first content (cut-stream after 3 events: the role, then two words). */
  cut: boolean;
}

/** Ten requests: JSON and streams, both fee layouts, four cut mid-answer (JSON and stream, both layouts). */
const MIX: Shape[] = [
  { stream: false, layout: 'client-paid', cut: false },
  { stream: true, layout: 'client-paid', cut: false },
  { stream: false, layout: 'sponsored', cut: false },
  { stream: true, layout: 'sponsored', cut: false },
  { stream: false, layout: 'client-paid', cut: true },
  { stream: true, layout: 'sponsored', cut: true },
  { stream: false, layout: 'sponsored', cut: false },
  { stream: true, layout: 'client-paid', cut: false },
  { stream: false, layout: 'sponsored', cut: true },
  { stream: true, layout: 'client-paid', cut: true },
];

/** One HTTP answer as the client saw it. */
interface Answer {
  /** The HTTP status, or 'error' when no answer came. */
  status: number | 'error';
  contentType: string;
  body: string;
  /** The receipt the answer names (X-Gw-Receipt, or a receipt path in an error body). */
  receipt: string | null;
  paymentResponse: boolean;
}

/** A paid request of a test: its payer, its payment, what it was answered (one entry per attempt). */
interface PaidRequest {
  label: string;
  shape: Shape;
  body: Record<string, unknown>;
  payer: Keypair;
  quote: bigint;
  payment: string;
  payerBefore: bigint;
  attempts: Answer[];
}

/** One test's gateway, its paid requests, and the recipient's balance and the landed count before any payment. */
interface Run {
  gw: RunningGateway;
  requests: PaidRequest[];
  recipientBefore: bigint;
  landedBefore: number;
}

/** What the client got from an answer. */
interface Received {
  content: string;
  /** JSON: choices[0].finish_reason; undefined for a stream or a non-200. */
  finishReason?: string | null;
  /** Stream: ended with [DONE]. */
  done: boolean;
  errorEvents: number;
}

describe('paid requests while the chain RPC is slow, flaky or silent: charged exactly once for an answer received, or not at all', () => {
  // Each gateway gets a migrated PGlite data directory of its own.
  const suite = useSettlementWorld();
  let world: PaidWorld;
  let proxy: RpcFaultProxy;
  beforeAll(() => ({ world, proxy } = suite));

  /**
   * A gateway on the fault proxy with short windows: confirmation 2 s, reconciler every 1 s, request
   * timeout 8 s (above the 5 s RPC call bound and the ~3 s an acceptance takes with every call 1.5 s late).
   */
  async function startGateway(): Promise<RunningGateway> {
    return suite.start({
      GW_STORAGE: undefined,
      GW_DATA_DIR: await migratedDataDir(),
      GW_SOLANA_RPC_URL: proxy.url,
      GW_SETTLEMENT_CONFIRM_SECS: '2',
      GW_RECONCILE_INTERVAL_SECS: '1',
      GW_REQUEST_TIMEOUT_SECS: '8',
      GW_SHUTDOWN_GRACE_SECS: '1',
      GW_DEEPSEEK_BASE_URL: world.upstreams.nvidia.url,
      DEEPSEEK_API_KEY: 'sk-test-deepseek',
    });
  }

  /** Whole answers from OpenAI; cut answers from the fake behind CUT_MODEL. */
  function providers(shape: Partial<{ firstByteDelayMs: number }> = {}): void {
    world.upstreams.openai.setDefault({ kind: 'reply', ...shape });
    const cut: Behaviour = { kind: 'cut-stream', afterChunks: 3, ...shape };
    world.upstreams.nvidia.setDefault(cut);
  }

  /** Quotes and signs each shape's payment with a fresh funded payer (quotes never touch the RPC). */
  async function prepare(gw: RunningGateway, shapes: Shape[]): Promise<PaidRequest[]> {
    return Promise.all(
      shapes.map(async (shape, i) => {
        const payer = fundedPayer(world);
        // Sponsored fees need a quote of at least GW_SPONSOR_MIN_ATOMIC (1,000): a long max_tokens.
        const body = chatBody({ model: shape.cut ? CUT_MODEL : PAID_MODEL, stream: shape.stream, max_tokens: shape.layout === 'sponsored' ? 8000 : 50 });
        const { header, amount } = await quote(gw, body);
        if (shape.layout === 'sponsored' && amount < 1_000n) throw new Error(`quote ${amount} too small to be sponsored`);
        const label = `#${i} ${shape.stream ? 'stream' : 'json'} ${shape.layout}${shape.cut ? ' cut' : ''}`;
        const payment = specPaymentHeader(world, header, { payer, layout: shape.layout });
        return { label, shape, body, payer, quote: amount, payment, payerBefore: world.localnet.usdcBalance(payer.publicKey), attempts: [] };
      }),
    );
  }

  /** Sends the request; a 402 "could not be confirmed. Please retry." is retried with the same payment up to `retries` times. */
  async function pay(gw: RunningGateway, request: PaidRequest, retries = 0): Promise<void> {
    for (;;) {
      const answer = await send(gw, request);
      request.attempts.push(answer);
      if (request.attempts.length > retries || answer.status !== 402 || !answer.body.includes(UNCONFIRMED)) return;
      await sleep(300);
    }
  }

  async function send(gw: RunningGateway, request: PaidRequest): Promise<Answer> {
    try {
      const res = await postChat(gw, request.body, { 'payment-signature': request.payment });
      const body = await res.text();
      return { status: res.status, contentType: res.headers.get('content-type') ?? '', body, receipt: receiptPathOf(res, body), paymentResponse: res.headers.has('payment-response') };
    } catch (err) {
      return { status: 'error', contentType: '', body: String((err as Error).message ?? err), receipt: null, paymentResponse: false };
    }
  }

  /**
   * The whole check: every issued receipt final; per payer, charged the quote iff its receipt is
   * settled; an answer with content only when settled; `delivery` partial for the cut ones and
   * complete for whole ones; the recipient gains what the settled receipts charged; every settled
   * transfer landed once, and nothing else landed. Returns the broken rules (empty when all hold).
   */
  function judge(requests: PaidRequest[], reads: Map<string, ReceiptRead>, recipientBefore: bigint, landedBefore: number): { broken: string[]; table: unknown[] } {
    const broken: string[] = [];
    const table: unknown[] = [];
    let settledCharge = 0n;
    const settledSignatures: string[] = [];
    for (const request of requests) {
      const final = request.attempts[request.attempts.length - 1];
      const received = receivedOf(final);
      const answered = received.content.length > 0;
      const paths = [...new Set(request.attempts.flatMap((a) => (a.receipt ? [a.receipt] : [])))];
      const receipts = paths.map((path) => reads.get(path) as ReceiptRead);
      const settled = receipts.flatMap((r) => (r.receipt?.status === 'settled' ? [r.receipt] : []));
      const delta = world.localnet.usdcBalance(request.payer.publicKey) - request.payerBefore;
      const problem = (what: string): void => void broken.push(`${request.label}: ${what}`);

      if (final.status === 'error') problem(`no HTTP answer (${final.body})`);
      for (const [i, read] of receipts.entries()) {
        if (!read.receipt || !FINAL_STATUSES.includes(read.receipt.status)) problem(`receipt ${paths[i]} not final within ${FINAL_WITHIN_MS} ms (${read.last})`);
      }
      if (settled.length > 1) problem(`${settled.length} settled receipts for one payment`);
      const expected = settled.length > 0 ? -request.quote : 0n;
      if (delta !== expected) problem(`payer changed by ${delta}, expected ${expected} (receipts: ${receipts.map((r) => r.receipt?.status ?? r.last).join(', ') || 'none'})`);
      for (const receipt of settled) {
        if (receipt.amount_charged_atomic !== request.quote.toString()) problem(`settled receipt charged ${receipt.amount_charged_atomic}, quote ${request.quote}`);
        settledCharge += BigInt(receipt.amount_charged_atomic);
        if (receipt.transaction_signature) settledSignatures.push(receipt.transaction_signature);
      }
      if (answered && settled.length === 0)
        problem(`an answer was delivered (${final.status}) with nothing charged; receipts: ${receipts.map((r) => r.receipt?.status ?? r.last).join(', ') || 'none'}`);
      if (!answered && delta !== 0n) problem(`charged ${-delta} with no content delivered (${final.status} ${final.body.slice(0, 200)})`);
      if (answered && settled.length === 1) {
        const wanted = request.shape.cut ? 'partial' : 'complete';
        if (settled[0].delivery !== wanted) problem(`receipt delivery ${String(settled[0].delivery)}, expected ${wanted}`);
        // The answer itself says the same: a cut JSON answer has finish_reason null, a cut stream ends with an error event.
        if (request.shape.stream) {
          const whole = received.done && received.errorEvents === 0;
          if (whole === request.shape.cut)
            problem(
              `stream ${received.done ? 'ended with [DONE]' : 'ended without [DONE]'} and ${received.errorEvents} error event(s), but the provider ${request.shape.cut ? 'cut' : 'completed'} it`,
            );
        } else if ((received.finishReason === null) !== request.shape.cut) problem(`JSON finish_reason ${String(received.finishReason)} for a ${request.shape.cut ? 'cut' : 'whole'} answer`);
      }
      table.push({
        request: request.label,
        answers: request.attempts.map((a) => (a.status === 200 ? `200${a.paymentResponse ? '+PAYMENT-RESPONSE' : ''}` : `${a.status} ${a.body.slice(0, 90)}`)),
        content: received.content.slice(0, 30),
        ...(request.shape.stream ? { done: received.done, errorEvents: received.errorEvents } : { finishReason: received.finishReason }),
        receipts: receipts.map((r) => (r.receipt ? `${r.receipt.status}/${String(r.receipt.delivery)}` : r.last)),
        payerDelta: delta.toString(),
        quote: request.quote.toString(),
      });
    }
    const gained = world.localnet.usdcBalance(world.recipient.publicKey) - recipientBefore;
    if (gained !== settledCharge) broken.push(`the recipient gained ${gained}, the settled receipts charged ${settledCharge}`);
    const landed = world.localnet.sentTransactions().slice(landedBefore);
    const signatures = landed.map((sent) => sent.signature);
    if (new Set(signatures).size !== signatures.length) broken.push(`a transaction landed twice: ${signatures.join(', ')}`);
    if (landed.length !== settledSignatures.length) broken.push(`${landed.length} transactions landed for ${settledSignatures.length} settled receipts`);
    for (const signature of settledSignatures) {
      const sent = landed.find((s) => s.signature === signature);
      if (!sent) broken.push(`settled receipt's transaction ${signature} is not among the landed ones`);
      else if (sent.err !== null) broken.push(`settled receipt's transaction ${signature} landed with an error`);
    }
    return { broken, table };
  }

  /** Reads every issued receipt until it is final (settled ones also with their delivery) or the time is up. */
  async function receiptsOf(gw: RunningGateway, requests: PaidRequest[]): Promise<Map<string, ReceiptRead>> {
    const paths = [...new Set(requests.flatMap((r) => r.attempts.flatMap((a) => (a.receipt ? [a.receipt] : []))))];
    const reads = await readReceiptsUntil([gw], paths, isFinal, FINAL_WITHIN_MS);
    return new Map(paths.map((path, i) => [path, reads[i]]));
  }

  /** A gateway, the providers (`timing`: see `providers`), the MIX quoted and signed, and the chain before any payment. */
  async function startRun(timing: Partial<{ firstByteDelayMs: number }> = {}): Promise<Run> {
    const gw = await startGateway();
    providers(timing);
    const requests = await prepare(gw, MIX);
    return { gw, requests, recipientBefore: world.localnet.usdcBalance(world.recipient.publicKey), landedBefore: world.localnet.sentTransactions().length };
  }

  /** Reads the run's receipts until final, runs the judgement and fails with every broken rule and the whole observation. */
  async function expectExactlyOnce({ gw, requests, recipientBefore, landedBefore }: Run, extra: Record<string, unknown> = {}): Promise<unknown[]> {
    const reads = await receiptsOf(gw, requests);
    const { broken, table } = judge(requests, reads, recipientBefore, landedBefore);
    if (process.env.RPC_FAULTS_VERBOSE) process.stdout.write(`${JSON.stringify({ ...extra, table }, null, 2)}\n`);
    if (broken.length > 0) throw new Error(`broken:\n  ${broken.join('\n  ')}\nobserved: ${JSON.stringify({ ...extra, table }, null, 2)}`);
    return table;
  }

  const answeredCount = (requests: PaidRequest[]): number => requests.filter((r) => receivedOf(r.attempts[r.attempts.length - 1]).content.length > 0).length;

  it('slow: every RPC call 1.5 s late; all ten answered, each charged its quote once, cut ones partial', async () => {
    const run = await startRun();
    const { gw, requests } = run;
    const calls = proxy.calls();

    proxy.mode({ kind: 'slow', delayMs: 1_500 });
    await Promise.all(requests.map((request) => pay(gw, request)));
    proxy.mode({ kind: 'pass' });
    const slowedCalls = proxy.calls() - calls;

    await expectExactlyOnce(run, { mode: 'slow', rpcCalls: slowedCalls });
    // Slowness refuses nothing (acceptance takes ~3 s of the 8 s request timeout): every request is answered and charged.
    expect(answeredCount(requests)).toBe(requests.length);
  }, 70_000);

  it('down while a payment is checked: 402 payment.chain_unreachable with no x402 header (no verdict on the payment), nothing moved; the same payment is served once the chain answers', async () => {
    const gw = await startGateway();
    providers();
    const [request] = await prepare(gw, [{ stream: false, layout: 'client-paid', cut: false }]);
    proxy.mode({ kind: 'fail' });
    const refused = await postChat(gw, request.body, { 'payment-signature': request.payment });
    proxy.mode({ kind: 'pass' });
    expect(refused.status).toBe(402);
    expect(await refused.json()).toMatchObject({ error: { type: 'invalid_payment', code: 'payment.chain_unreachable' } });
    expect(refused.headers.get('payment-required')).toBeNull();
    expect(refused.headers.get('payment-response')).toBeNull();
    expect(world.localnet.usdcBalance(request.payer.publicKey)).toBe(request.payerBefore);
    const served = await postChat(gw, request.body, { 'payment-signature': request.payment });
    expect(served.status).toBe(200);
    expect(world.localnet.usdcBalance(request.payer.publicKey)).toBe(request.payerBefore - request.quote);
  }, 30_000);

  it('flaky: every third RPC call fails (503); nothing is charged without an answer, nothing answered goes uncharged', async () => {
    const run = await startRun();
    const { gw, requests } = run;
    const calls = proxy.calls();

    proxy.mode({ kind: 'flaky', every: 3 });
    // A client retries "could not be confirmed. Please retry." with the same payment (its claim was never taken).
    await Promise.all(requests.map((request) => pay(gw, request, 3)));
    // The reconciler's first passes run with the RPC still flaky.
    await sleep(3_000);
    proxy.mode({ kind: 'pass' });
    const flakyCalls = proxy.calls() - calls;

    await expectExactlyOnce(run, { mode: 'flaky', rpcCalls: flakyCalls });
    expect(answeredCount(requests)).toBeGreaterThan(0);
  }, 80_000);

  it('silent for 30 s: answers whose payment went out into the silence are delivered and settle later; requests arriving in it are refused unpaid', async () => {
    // The first content comes 3 s after a provider is called: for wave A, well inside the silence.
    const run = await startRun({ firstByteDelayMs: 3_000 });
    const { gw, requests } = run;
    const [waveA, waveB1, waveB2] = [requests.slice(0, 6), requests.slice(6, 8), requests.slice(8)];

    // Wave A is accepted (verified, simulated, claimed, handed to a provider) before the RPC falls silent; its broadcasts fall into the silence.
    const inFlight = waveA.map((request) => pay(gw, request));
    await until(() => world.upstreams.openai.requests.length + world.upstreams.nvidia.requests.length === waveA.length, 10_000, 'wave A reaching the providers');
    const silentFrom = Date.now();
    proxy.mode({ kind: 'silent' });
    // Wave B1 arrives in the silence: acceptance cannot reach the chain.
    inFlight.push(...waveB1.map((request) => pay(gw, request)));
    // Wave B2 arrives 3 s before the RPC comes back: its acceptance waits on the silent RPC, then goes on.
    await sleep(27_000 - (Date.now() - silentFrom));
    inFlight.push(...waveB2.map((request) => pay(gw, request)));
    await sleep(30_000 - (Date.now() - silentFrom));
    proxy.mode({ kind: 'pass' });
    await Promise.all(inFlight);

    const table = await expectExactlyOnce(run, { mode: 'silent' });
    // What the silence did (the money rules above hold whatever it did; these say the test exercised it):
    expectAll(
      {
        // Broadcast counts from an unknown send outcome: the answer is served, never un-charged.
        'wave A (accepted before the silence) all answered': answeredCount(waveA) === waveA.length,
        // Its JSON answers went out before their payments could be confirmed (no PAYMENT-RESPONSE: the receipt was pending).
        'a wave A JSON answer went out unconfirmed': waveA.some((r) => !r.shape.stream && r.attempts[0].status === 200 && !r.attempts[0].paymentResponse),
        'wave B1 (sent into the silence) refused with nothing charged': waveB1.every((r) => r.attempts[0].status !== 200 && world.localnet.usdcBalance(r.payer.publicKey) === r.payerBefore),
        'wave B2 (accepted once the RPC came back) answered': answeredCount(waveB2) === waveB2.length,
      },
      table,
    );
  }, 100_000);
});

/** What the client received from one answer. */
function receivedOf(answer: Answer): Received {
  if (answer.status !== 200) return { content: '', done: false, errorEvents: 0 };
  if (answer.contentType.startsWith('text/event-stream')) {
    const data = sseDataOf(answer.body);
    return { content: streamedContent(data), done: data[data.length - 1] === '[DONE]', errorEvents: errorEvents(data).length };
  }
  try {
    const json = JSON.parse(answer.body) as { choices?: Array<{ message?: { content?: string | null }; finish_reason?: string | null }> };
    const choice = json.choices?.[0];
    return { content: choice?.message?.content ?? '', finishReason: choice?.finish_reason, done: false, errorEvents: 0 };
  } catch {
    return { content: '', done: false, errorEvents: 0 };
  }
}

/** Final, and for a settled receipt also its delivery recorded (written once the client finished reading). */
const isFinal = (receipt: ReceiptView): boolean => FINAL_STATUSES.includes(receipt.status) && (receipt.status !== 'settled' || (receipt.delivery ?? null) !== null);
