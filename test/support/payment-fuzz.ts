import * as fc from 'fast-check';
import type { RunningGateway } from '../../src/gateway';
import type { PaymentRequiredHeader } from '../../libs/x402';
import { chatBody, postChat, specPaymentHeader, type PaidWorld } from './paid-gateway';
import { fundedPayer, snapshot, until } from './settlement-probes';

/**
 * Generated PAYMENT-SIGNATURE headers and paid bodies against a running gateway on the local chain
 * (issue 11's fuzzing). The arbitraries produce recipes (plain data, so fast-check can print and
 * shrink them); `PaymentFuzzer.run` turns each into a request, built from a fresh valid payment,
 * and checks the properties: no 5xx; every refusal in the spec's envelope (or a 402 quote); the
 * payer's and recipient's USDC move only with a 200, by exactly the transfer's amount, at most once
 * per signed transaction; the fee payer pays only for a sponsored payment that was served.
 */

/** A field of the decoded header JSON (either casing) and what replaces it. */
const FIELD_PATHS = [
  ['x402Version'],
  ['resource'],
  ['resource', 'url'],
  ['resource', 'method'],
  ['accepted'],
  ['accepted', 'scheme'],
  ['accepted', 'network'],
  ['accepted', 'asset'],
  ['accepted', 'payTo'],
  ['accepted', 'amount'],
  ['accepted', 'maxTimeoutSeconds'],
  ['payload'],
  ['payload', 'transaction'],
] as const;

export type HeaderRecipe =
  | { kind: 'valid'; layout: 'client-paid' | 'sponsored'; encoding: 'base64' | 'raw' | 'base64url' | 'padded-raw'; casing: 'snake' | 'camel' }
  /** The previous case's header again, whatever it was. */
  | { kind: 'resend' }
  | { kind: 'truncated'; at: number }
  | { kind: 'byte-flipped'; at: number; mask: number; layout: 'client-paid' | 'sponsored' }
  | { kind: 'field'; path: number; value: unknown }
  | { kind: 'amount'; value: string }
  | { kind: 'oversized'; what: 'signatures' | 'json-array' | 'transaction-bytes' | 'nested'; count: number }
  | { kind: 'random-text'; text: string }
  | { kind: 'random-base64'; bytes: Uint8Array };

export type BodyRecipe =
  | { kind: 'valid'; stream: boolean }
  | { kind: 'mutated'; field: 'model' | 'max_tokens' | 'messages' | 'stream' | 'temperature'; value: unknown };

export interface FuzzCase {
  header: HeaderRecipe;
  body: BodyRecipe;
}

/** What an HTTP header value may hold (visible ASCII, space, obs-text): anything else never leaves the client. */
const headerCharacter = fc.integer({ min: 0x20, max: 0xff }).filter((code) => code !== 0x7f).map((code) => String.fromCharCode(code));
const layout = fc.constantFrom('client-paid' as const, 'sponsored' as const);
const oddValue = fc.oneof(
  fc.constantFrom(null, true, 0, -1, 1.5, '', 'exact', 'escrow', 'channel', 'solana:devnet', '/v1/chat/completions', 'https://evil.example/v1/chat/completions', 'GET', '1e400', {}, []),
  fc.string({ maxLength: 64 }),
  fc.integer(),
  fc.jsonValue({ maxDepth: 3 }),
);

export const headerRecipe: fc.Arbitrary<HeaderRecipe> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('valid' as const), layout, encoding: fc.constantFrom('base64' as const, 'raw' as const, 'base64url' as const, 'padded-raw' as const), casing: fc.constantFrom('snake' as const, 'camel' as const) }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'resend' as const }) },
  { weight: 10, arbitrary: fc.record({ kind: fc.constant('truncated' as const), at: fc.double({ min: 0, max: 1, noNaN: true }) }) },
  { weight: 20, arbitrary: fc.record({ kind: fc.constant('byte-flipped' as const), at: fc.double({ min: 0, max: 1, noNaN: true }), mask: fc.integer({ min: 1, max: 255 }), layout }) },
  { weight: 20, arbitrary: fc.record({ kind: fc.constant('field' as const), path: fc.nat({ max: FIELD_PATHS.length - 1 }), value: oddValue }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('amount' as const), value: fc.oneof(fc.constantFrom('0', '-1', '1', '18446744073709551616', '99999999999999999999999999', '1.5', '1e3', ' 5', '0x10', ''), fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String)) }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('oversized' as const), what: fc.constantFrom('signatures' as const, 'json-array' as const, 'transaction-bytes' as const, 'nested' as const), count: fc.integer({ min: 100, max: 60_000 }) }) },
  { weight: 12, arbitrary: fc.record({ kind: fc.constant('random-text' as const), text: fc.string({ maxLength: 300, unit: headerCharacter }) }) },
  { weight: 12, arbitrary: fc.record({ kind: fc.constant('random-base64' as const), bytes: fc.uint8Array({ maxLength: 1_500 }) }) },
);

export const bodyRecipe: fc.Arbitrary<BodyRecipe> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('valid' as const), stream: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('mutated' as const),
      field: fc.constantFrom('model' as const, 'max_tokens' as const, 'messages' as const, 'stream' as const, 'temperature' as const),
      value: fc.oneof(oddValue, fc.constantFrom(1e20, -5, 0, 2 ** 31, 'openai/gpt-4o', 'auto', 'free'), fc.array(fc.record({ role: fc.constantFrom('user', 'system', 'tool', 'x'), content: fc.string({ maxLength: 20 }) }), { maxLength: 400 })),
    }),
  },
);

export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.record({ header: headerRecipe, body: bodyRecipe });

/** Counts of what the runs met, for the script's report. */
export interface FuzzStats {
  runs: number;
  byStatus: Map<number, number>;
  served: number;
  charged: bigint;
}

interface Sent {
  header: string;
  /** The transfer's amount when the header carries an intact transaction of ours, else null (nothing may move). */
  amount: bigint | null;
  sponsored: boolean;
  /** The signed transaction, base64: what "at most once" is counted on. */
  transaction: string | null;
}

/** The properties, request by request, on one gateway and one payer. */
export class PaymentFuzzer {
  readonly stats: FuzzStats = { runs: 0, byStatus: new Map(), served: 0, charged: 0n };
  private readonly payer;
  private readonly paidTransactions = new Set<string>();
  private previous: Sent | null = null;

  constructor(
    private readonly world: PaidWorld,
    private readonly gateway: RunningGateway,
    private readonly quote: { header: PaymentRequiredHeader; amount: bigint },
    /** The fee the fee payer pays for a served sponsored payment of the test client's shape. */
    private readonly sponsoredFee: bigint,
  ) {
    this.payer = fundedPayer(world, 1_000_000_000n);
  }

  async run(recipe: FuzzCase): Promise<void> {
    const sent = this.header(recipe.header);
    const body = this.body(recipe.body);
    const before = snapshot(this.world, this.payer);
    const res = await postChat(this.gateway, body, { 'payment-signature': sent.header });
    const text = await res.text();
    this.stats.runs += 1;
    this.stats.byStatus.set(res.status, (this.stats.byStatus.get(res.status) ?? 0) + 1);
    if (res.status >= 500) throw new Error(`a 5xx: ${res.status} ${text.slice(0, 300)}`);
    if (res.status !== 200) expectEnvelope(res.status, text);

    const repeat = sent.transaction !== null && this.paidTransactions.has(sent.transaction);
    // A body the mutation made free is served without looking at the payment; only paid answers carry a session token.
    const paid = res.headers.has('x-gw-session');
    const moves = res.status === 200 && paid && sent.amount !== null && !repeat;
    const expected = moves ? (sent.amount as bigint) : 0n;
    // A stream's transfer confirms while it flows: give it the confirmation window's start to land.
    if (moves) await until(() => before.payer - snapshot(this.world, this.payer).payer === expected, 5_000, 'the served payment lands').catch(() => undefined);
    const after = snapshot(this.world, this.payer);
    const moved = { payer: before.payer - after.payer, recipient: after.recipient - before.recipient, feePayer: before.feePayerLamports - after.feePayerLamports };
    const wanted = { payer: expected, recipient: expected, feePayer: moves && sent.sponsored ? this.sponsoredFee : 0n };
    if (moved.payer !== wanted.payer || moved.recipient !== wanted.recipient || moved.feePayer !== wanted.feePayer) {
      throw new Error(`money moved wrongly: status ${res.status}, moved ${show(moved)}, expected ${show(wanted)}, repeat ${repeat}; ${text.slice(0, 200)}`);
    }
    if (res.status === 200 && paid && sent.amount === null) throw new Error(`served a request whose payment was broken: ${text.slice(0, 200)}`);
    if (moves) {
      this.paidTransactions.add(sent.transaction as string);
      this.stats.served += 1;
      this.stats.charged += expected;
    }
    this.previous = sent;
  }

  private header(recipe: HeaderRecipe): Sent {
    switch (recipe.kind) {
      case 'valid': {
        const header = this.valid(recipe.layout, recipe.casing);
        const json = Buffer.from(header, 'base64').toString('utf8');
        const encoded = { base64: header, raw: json, base64url: Buffer.from(json).toString('base64url'), 'padded-raw': `  ${json.replace(/,/g, ' , ')}\t` }[recipe.encoding];
        return { header: encoded, amount: this.quote.amount, sponsored: recipe.layout === 'sponsored', transaction: transactionOf(header) };
      }
      case 'resend':
        return this.previous ?? this.header({ kind: 'valid', layout: 'client-paid', encoding: 'base64', casing: 'snake' });
      case 'truncated': {
        const header = this.valid('client-paid', 'snake');
        const cut = Math.min(header.length - 1, Math.floor(recipe.at * header.length));
        return broken(header.slice(0, cut));
      }
      case 'byte-flipped': {
        const payment = decoded(this.valid(recipe.layout, 'snake'));
        const bytes = Buffer.from(payment.payload.transaction, 'base64');
        bytes[Math.min(bytes.length - 1, Math.floor(recipe.at * bytes.length))] ^= recipe.mask;
        payment.payload.transaction = bytes.toString('base64');
        // A flipped byte may be one the signature does not cover (our fee payer's empty slot): then it is still the payer's transfer.
        return { header: encoded(payment), amount: this.quote.amount, sponsored: recipe.layout === 'sponsored', transaction: payment.payload.transaction };
      }
      case 'field': {
        const payment = decoded(this.valid('client-paid', 'snake')) as unknown as Record<string, unknown>;
        const path = FIELD_PATHS[recipe.path].map(snake);
        setPath(payment, path, recipe.value);
        // Some replacements keep the payment valid (the same value, or a field the gateway ignores): the transfer is then still intact.
        const transaction = typeof (payment.payload as { transaction?: unknown } | undefined)?.transaction === 'string' ? ((payment.payload as { transaction: string }).transaction as string) : null;
        return { header: encoded(payment), amount: this.quote.amount, sponsored: false, transaction };
      }
      case 'amount': {
        const payment = decoded(this.valid('client-paid', 'snake'));
        payment.accepted.amount = recipe.value;
        return { header: encoded(payment), amount: this.quote.amount, sponsored: false, transaction: payment.payload.transaction };
      }
      case 'oversized':
        return broken(oversized(this.valid('client-paid', 'snake'), recipe.what, recipe.count));
      case 'random-text':
        return broken(recipe.text);
      case 'random-base64':
        return broken(Buffer.from(recipe.bytes).toString('base64'));
    }
  }

  private valid(layout: 'client-paid' | 'sponsored', casing: 'snake' | 'camel'): string {
    return specPaymentHeader(this.world, this.quote.header, { payer: this.payer, layout, casing });
  }

  private body(recipe: BodyRecipe): Record<string, unknown> {
    return recipe.kind === 'valid' ? chatBody({ stream: recipe.stream }) : chatBody({ [recipe.field]: recipe.value });
  }
}

interface DecodedPayment {
  accepted: { amount: string };
  payload: { transaction: string };
  [field: string]: unknown;
}

function decoded(header: string): DecodedPayment {
  return JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as DecodedPayment;
}

function encoded(payment: unknown): string {
  return Buffer.from(JSON.stringify(payment)).toString('base64');
}

function transactionOf(header: string): string {
  return decoded(header).payload.transaction;
}

/** A header that carries no intact transaction: nothing may move for it. */
function broken(header: string): Sent {
  return { header, amount: null, sponsored: false, transaction: null };
}

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node: Record<string, unknown> = target;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]] = value;
}

/** A valid header grown past what any part of the gateway should accept: big arrays where there are none, or too many. */
function oversized(header: string, what: 'signatures' | 'json-array' | 'transaction-bytes' | 'nested', count: number): string {
  const payment = decoded(header);
  if (what === 'json-array') return encoded({ ...payment, accepted: { ...payment.accepted, extra: Array.from({ length: count }, (_, i) => i) } });
  if (what === 'nested') {
    // Written as text: deep enough to overflow a recursive walker, including JSON.stringify's.
    const depth = Math.min(count, 20_000);
    return Buffer.from(JSON.stringify({ ...payment, payload: 0 }).replace('"payload":0', `"payload":${'['.repeat(depth)}${']'.repeat(depth)}`)).toString('base64');
  }
  const bytes = Buffer.from(payment.payload.transaction, 'base64');
  // A shortvec signature count of `count` in front of the message, with as many 64-byte signatures as fit 40 KB.
  const grown = what === 'signatures' ? Buffer.concat([shortvec(count), Buffer.alloc(Math.min(count, 600) * 64, 7), bytes.subarray(1 + 64)]) : Buffer.concat([bytes, Buffer.alloc(Math.min(count, 36_000), 1)]);
  return encoded({ ...payment, payload: { ...payment.payload, transaction: grown.toString('base64') } });
}

function shortvec(value: number): Buffer {
  const out: number[] = [];
  let rest = value;
  for (;;) {
    const low = rest & 0x7f;
    rest >>= 7;
    if (rest === 0) {
      out.push(low);
      return Buffer.from(out);
    }
    out.push(low | 0x80);
  }
}

function expectEnvelope(status: number, text: string): void {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`a ${status} whose body is not JSON: ${text.slice(0, 200)}`);
  }
  const record = body as { x402_version?: unknown; error?: { type?: unknown; message?: unknown } };
  if (status === 402 && record.x402_version !== undefined) return;
  if (typeof record.error?.type !== 'string' || typeof record.error.message !== 'string') throw new Error(`a ${status} outside the error envelope: ${text.slice(0, 200)}`);
}

function show(value: Record<string, bigint>): string {
  return JSON.stringify(Object.fromEntries(Object.entries(value).map(([key, amount]) => [key, amount.toString()])));
}

/** The environment a fuzzed gateway runs with: limits raised so that only the payment's own checks answer. */
export const FUZZ_ENV: Record<string, string> = {
  GW_RATE_LIMIT_MAX: '10000000',
  GW_MAX_CONCURRENT_REQUESTS: '5000',
  GW_SPONSOR_LAMPORTS_PER_HOUR: '100000000000',
  GW_SPONSOR_WALLET_LAMPORTS_PER_HOUR: '100000000000',
  GW_LOG_LEVEL: 'silent',
};
