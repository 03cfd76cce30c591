import { createHash, createPrivateKey, createPublicKey, randomBytes, sign, verify, type KeyObject } from 'node:crypto';
import { AccountLayout, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { type Keypair, PublicKey, VersionedMessage } from '@solana/web3.js';
import * as fc from 'fast-check';
import type { RunningGateway } from '../../src/gateway';
import { decodePaymentSignature, encodePaymentSignature, type Casing, type PaymentRequiredHeader } from '../../libs/x402';
import { toSnake } from '../../libs/x402/casing';
import { chatBody, postChat, quote, specPaymentHeader, type PaidWorld } from './paid-gateway';
import { paymentInstructions, transferChecked, type PaymentParties } from './payment-transactions';
import { fundedPayer, until } from './settlement-probes';

/**
 * Generated PAYMENT-SIGNATURE headers and paid bodies against a running gateway on the local chain
 * (fuzzing the payment path). The arbitraries produce recipes (plain data, so that a counterexample
 * prints as something one can rebuild); `PaymentFuzzer.run` turns each into a request, built from a
 * fresh valid payment, and checks the properties: no 5xx; every refusal in the spec's envelope (or
 * a 402 quote); the payer's and recipient's USDC move only with a paid 200, by exactly the
 * transfer's amount, never below the body's quote, at most once per signed message (a used payment
 * re-encoded or signed again is never served as new); the fee payer pays only for a sponsored
 * payment that was served.
 */

/** A field of the decoded header JSON (camelCase here, spelt in the header's casing when set). */
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
  ['accepted', 'extra'],
  ['payload'],
  ['payload', 'transaction'],
] as const;

/** What the gateway knows of the world, for replacements that are valid-looking but wrong. */
interface World {
  offer: PaymentRequiredHeader['accepts'][number];
  resourceUrl: string;
  payer: PublicKey;
  feePayer: PublicKey;
  recipient: PublicKey;
  mint: PublicKey;
}

/** Near misses: a value of the right form that is someone else's, another chain's, or one character off. */
const NEAR_MISSES = {
  'network: devnet': [['accepted', 'network'], () => 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'],
  'network: one character off': [['accepted', 'network'], (w) => offByOne(w.offer.network)],
  'network: upper case': [['accepted', 'network'], (w) => w.offer.network.toUpperCase()],
  'asset: the payer wallet': [['accepted', 'asset'], (w) => w.payer.toBase58()],
  'asset: one character off': [['accepted', 'asset'], (w) => offByOne(w.offer.asset)],
  'asset: the system program': [['accepted', 'asset'], () => '11111111111111111111111111111111'],
  'payTo: the recipient token account': [['accepted', 'payTo'], (w) => getAssociatedTokenAddressSync(w.mint, w.recipient, true).toBase58()],
  'payTo: the payer': [['accepted', 'payTo'], (w) => w.payer.toBase58()],
  'payTo: the fee payer': [['accepted', 'payTo'], (w) => w.feePayer.toBase58()],
  'payTo: one character off': [['accepted', 'payTo'], (w) => offByOne(w.offer.payTo)],
  'amount: one more': [['accepted', 'amount'], (w) => (BigInt(w.offer.amount) + 1n).toString()],
  'amount: one less': [['accepted', 'amount'], (w) => (BigInt(w.offer.amount) - 1n).toString()],
  'amount: leading zero': [['accepted', 'amount'], (w) => `0${w.offer.amount}`],
  'amount: plus sign': [['accepted', 'amount'], (w) => `+${w.offer.amount}`],
  'amount: a JSON number': [['accepted', 'amount'], (w) => Number(w.offer.amount)],
  'amount: exponent': [['accepted', 'amount'], (w) => `${w.offer.amount}e0`],
  'amount: millions of USDC': [['accepted', 'amount'], () => '1000000000000000'],
  'resource: another host': [['resource', 'url'], (w) => w.resourceUrl.replace('://', '://evil.')],
  'resource: a query string': [['resource', 'url'], (w) => `${w.resourceUrl}?model=free`],
  'resource: a trailing slash': [['resource', 'url'], (w) => `${w.resourceUrl}/`],
  'resource: another path': [['resource', 'url'], (w) => w.resourceUrl.replace('/chat/completions', '/completions')],
  'resource: upper case': [['resource', 'url'], (w) => w.resourceUrl.toUpperCase()],
  'resource: GET': [['resource', 'method'], () => 'GET'],
  'scheme: upper case': [['accepted', 'scheme'], () => 'EXACT'],
  'scheme: trailing space': [['accepted', 'scheme'], () => 'exact '],
  'maxTimeoutSeconds: 0': [['accepted', 'maxTimeoutSeconds'], () => 0],
  'maxTimeoutSeconds: a year': [['accepted', 'maxTimeoutSeconds'], () => 31_536_000],
  'extra.feePayer: the payer': [['accepted', 'extra'], (w) => ({ feePayer: w.payer.toBase58() })],
  'extra.feePayer: the gateway': [['accepted', 'extra'], (w) => ({ feePayer: w.feePayer.toBase58() })],
  'x402Version: 1': [['x402Version'], () => 1],
  'x402Version: "2"': [['x402Version'], () => '2'],
  'x402Version: 2.0000001': [['x402Version'], () => 2.0000001],
} satisfies Record<string, readonly [readonly string[], (world: World) => unknown]>;
type NearMiss = keyof typeof NEAR_MISSES;

/** One payment's JSON as base64, raw, base64url or raw with whitespace; then two broken base64 forms a lenient decoder might still read. */
type Encoding = 'base64' | 'raw' | 'base64url' | 'padded-raw' | 'unpadded-base64' | 'split-base64';
type Layout = 'client-paid' | 'sponsored';
/** A copy of one payment: the same header, another encoding or casing of it, or the message signed again. */
type Copy = 'same' | 'raw' | 'base64url' | 'camel' | 're-signed';
type OversizedPart = 'signatures' | 'instructions' | 'accounts' | 'instruction-accounts' | 'instruction-data' | 'transaction-bytes' | 'json-array' | 'nested';

export type HeaderRecipe =
  | { kind: 'valid'; layout: Layout; encoding: Encoding; casing: Casing }
  /** The previous case's header again, whatever it was. */
  | { kind: 'resend' }
  /** The last served payment again: re-encoded, signed again with another valid signature, or with a malleated one. */
  | { kind: 'replay'; how: 're-encoded'; encoding: Encoding; casing: Casing }
  | { kind: 'replay'; how: 're-signed' | 'malleated' }
  /** One fresh payment sent several times at once, in these forms: at most one may be served. */
  | { kind: 'concurrent'; layout: Layout; copies: Copy[] }
  /** A valid payment of another amount than the quote (accepted.amount saying the same). */
  | { kind: 'valid-amount'; layout: Layout; change: 'zero' | 'one less' | 'one more' | 'double' | 'beyond the balance' }
  | { kind: 'truncated'; at: number; encoding: 'base64' | 'raw' }
  | { kind: 'byte-flipped'; at: number; mask: number; layout: Layout }
  | { kind: 'field'; path: number; value: unknown; casing: Casing }
  | { kind: 'near-miss'; which: NearMiss; layout: Layout }
  | { kind: 'amount'; value: string }
  | { kind: 'scheme-payload'; shape: 'escrow' | 'channel' | 'exact and escrow' | 'empty'; scheme: 'exact' | 'escrow' | 'channel'; casing: Casing }
  | { kind: 'oversized'; what: OversizedPart; count: number; layout: Layout }
  | { kind: 'random-text'; text: string }
  | { kind: 'random-base64'; bytes: Uint8Array };

export type BodyRecipe =
  | { kind: 'valid'; stream: boolean }
  | { kind: 'mutated'; field: 'model' | 'max_tokens' | 'messages' | 'stream' | 'temperature' | 'stop' | 'n'; value: unknown; stream: boolean }
  | { kind: 'oversized'; what: 'messages' | 'content' | 'stop' | 'nested-content'; count: number; stream: boolean };

export interface FuzzCase {
  header: HeaderRecipe;
  body: BodyRecipe;
}

/** What an HTTP header value may hold (visible ASCII, space, obs-text): anything else never leaves the client. */
const headerCharacter = fc
  .integer({ min: 0x20, max: 0xff })
  .filter((code) => code !== 0x7f)
  .map((code) => String.fromCharCode(code));
const layout = fc.constantFrom<Layout>('client-paid', 'sponsored');
const casing = fc.constantFrom<Casing>('snake', 'camel');
const encoding = fc.constantFrom<Encoding>('base64', 'raw', 'base64url', 'padded-raw', 'unpadded-base64', 'split-base64');
const fraction = fc.double({ min: 0, max: 1, noNaN: true });
/** Counts both under the 64 KB header limit (parsed) and over it (431). */
const count = fc.oneof(fc.integer({ min: 100, max: 2_000 }), fc.integer({ min: 2_000, max: 60_000 }));
const oddValue = fc.oneof(
  fc.constantFrom(null, true, 0, -1, 1.5, '', 'exact', 'escrow', 'channel', 'solana:devnet', '/v1/chat/completions', 'https://evil.example/v1/chat/completions', 'GET', '1e400', {}, []),
  fc.string({ maxLength: 64 }),
  fc.integer(),
  fc.jsonValue({ maxDepth: 3 }),
);

export const headerRecipe: fc.Arbitrary<HeaderRecipe> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('valid' as const), layout, encoding, casing }) },
  { weight: 4, arbitrary: fc.constant({ kind: 'resend' as const }) },
  {
    weight: 4,
    arbitrary: fc.oneof(
      fc.record({ kind: fc.constant('replay' as const), how: fc.constant('re-encoded' as const), encoding, casing }),
      fc.record({ kind: fc.constant('replay' as const), how: fc.constantFrom('re-signed' as const, 'malleated' as const) }),
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('concurrent' as const),
      layout,
      copies: fc.array(fc.constantFrom<Copy>('same', 'raw', 'base64url', 'camel', 're-signed'), { minLength: 2, maxLength: 4 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('valid-amount' as const),
      layout,
      change: fc.constantFrom('zero' as const, 'one less' as const, 'one more' as const, 'double' as const, 'beyond the balance' as const),
    }),
  },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('truncated' as const), at: fraction, encoding: fc.constantFrom('base64' as const, 'raw' as const) }) },
  { weight: 16, arbitrary: fc.record({ kind: fc.constant('byte-flipped' as const), at: fraction, mask: fc.integer({ min: 1, max: 255 }), layout }) },
  { weight: 14, arbitrary: fc.record({ kind: fc.constant('field' as const), path: fc.nat({ max: FIELD_PATHS.length - 1 }), value: oddValue, casing }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('near-miss' as const), which: fc.constantFrom(...(Object.keys(NEAR_MISSES) as NearMiss[])), layout }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('amount' as const),
      value: fc.oneof(
        fc.constantFrom('0', '-1', '1', '18446744073709551616', '99999999999999999999999999', '1.5', '1e3', ' 5', '0x10', ''),
        fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
      ),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('scheme-payload' as const),
      shape: fc.constantFrom('escrow' as const, 'channel' as const, 'exact and escrow' as const, 'empty' as const),
      scheme: fc.constantFrom('exact' as const, 'escrow' as const, 'channel' as const),
      casing,
    }),
  },
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('oversized' as const),
      what: fc.constantFrom<OversizedPart>('signatures', 'instructions', 'accounts', 'instruction-accounts', 'instruction-data', 'transaction-bytes', 'json-array', 'nested'),
      count,
      layout,
    }),
  },
  { weight: 9, arbitrary: fc.record({ kind: fc.constant('random-text' as const), text: fc.string({ maxLength: 300, unit: headerCharacter }) }) },
  { weight: 9, arbitrary: fc.record({ kind: fc.constant('random-base64' as const), bytes: fc.uint8Array({ maxLength: 1_500 }) }) },
);

export const bodyRecipe: fc.Arbitrary<BodyRecipe> = fc.oneof(
  { weight: 16, arbitrary: fc.record({ kind: fc.constant('valid' as const), stream: fc.boolean() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('mutated' as const),
      field: fc.constantFrom('model' as const, 'max_tokens' as const, 'messages' as const, 'stream' as const, 'temperature' as const, 'stop' as const, 'n' as const),
      value: fc.oneof(
        oddValue,
        fc.constantFrom(1e20, -5, 0, 0.5, 2 ** 31, 2 ** 53 + 1, 'openai/gpt-4o', 'openai/no-such-model', 'nobody/gpt-4o-mini', 'auto', 'free'),
        fc.array(fc.record({ role: fc.constantFrom('user', 'system', 'assistant', 'tool', 'x'), content: fc.oneof(fc.string({ maxLength: 20 }), fc.constant(null), fc.integer()) }), { maxLength: 40 }),
      ),
      stream: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('oversized' as const),
      what: fc.constantFrom('messages' as const, 'content' as const, 'stop' as const, 'nested-content' as const),
      count: fc.integer({ min: 300, max: 50_000 }),
      stream: fc.boolean(),
    }),
  },
);

export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.record({ header: headerRecipe, body: bodyRecipe });

/** Counts of what the runs met, for the script's report. */
export interface FuzzStats {
  runs: number;
  /** Requests sent: one a case, several for the concurrent copies. */
  requests: number;
  /** Requests by status. */
  byStatus: Map<number, number>;
  /** Status counts per header recipe kind: which recipes reach which answers. */
  byKind: Map<string, Map<number, number>>;
  served: number;
  charged: bigint;
  redelivered: number;
}

interface Sent {
  header: string;
  /** The transfer's amount when the header carries an intact transaction of ours, else null (nothing may move). */
  amount: bigint | null;
  sponsored: boolean;
  /** The signed message, base64: what "at most once" is counted on (one message may carry several valid signatures). */
  message: string | null;
}

/** The properties, request by request, on one gateway and one payer of its own. */
export class PaymentFuzzer {
  readonly stats: FuzzStats = { runs: 0, requests: 0, byStatus: new Map(), byKind: new Map(), served: 0, charged: 0n, redelivered: 0 };
  private readonly payer: Keypair;
  private readonly signer: Ed25519Signer;
  private readonly paidMessages = new Set<string>();
  private readonly balances: Balances;
  private readonly started: Balance;
  private readonly world: World;
  private previous: Sent | null = null;
  private lastPaid: Sent | null = null;
  /** The last cases run, oldest first: a failing case may depend on the ones before it (resend, replay). */
  readonly recent: FuzzCase[] = [];

  constructor(
    private readonly paid: PaidWorld,
    private readonly gateway: RunningGateway,
    private readonly quote: { header: PaymentRequiredHeader; amount: bigint },
    /** The fee the fee payer pays for a served sponsored payment of the test client's shape. */
    private readonly sponsoredFee: bigint,
  ) {
    // A payer of its own, funded far past what 100,000 runs spend, so that in-flight exposure never answers.
    this.payer = fundedPayer(paid, 1_000_000_000n);
    this.signer = new Ed25519Signer(this.payer);
    this.world = {
      offer: quote.header.accepts[0],
      resourceUrl: quote.header.resource.url,
      payer: this.payer.publicKey,
      feePayer: paid.feePayer.publicKey,
      recipient: paid.recipient.publicKey,
      mint: paid.mint,
    };
    this.balances = new Balances(paid, this.payer.publicKey);
    this.started = this.balances.read();
  }

  async run(recipe: FuzzCase): Promise<void> {
    this.stats.runs += 1;
    this.recent.push(recipe);
    if (this.recent.length > 8) this.recent.shift();
    const sends = recipe.header.kind === 'concurrent' ? this.concurrent(recipe.header) : [this.header(recipe.header)];
    const body = this.body(recipe.body);
    const before = this.balances.read();
    const answers = await Promise.all(
      sends.map(async (sent) => {
        const res = await postChat(this.gateway, body, { 'payment-signature': sent.header });
        return { sent, res, text: await res.text() };
      }),
    );
    const served: Sent[] = [];
    for (const { sent, res, text } of answers) {
      this.count(recipe.header.kind, res.status);
      if (res.status >= 500) throw new Error(`a 5xx: ${res.status} ${text.slice(0, 300)}`);
      if (res.status !== 200) expectEnvelope(res.status, text);
      // A body the mutation made free is served without looking at the payment; only paid answers carry a session token.
      const paid = res.status === 200 && res.headers.has('x-gw-session');
      const redelivered = res.headers.get('x-gw-redelivered') === 'true';
      if (redelivered) this.stats.redelivered += 1;
      if (paid && sent.amount === null) throw new Error(`served a request whose payment was broken: ${text.slice(0, 200)}`);
      // The fuzzer reads every answer to its end, so no answer is ever owed again: a used payment is a 402.
      const repeat = sent.message !== null && (this.paidMessages.has(sent.message) || served.some((other) => other.message === sent.message));
      if (res.status === 200 && repeat && (paid || redelivered)) throw new Error(`a used payment served again (redelivered: ${redelivered}): ${text.slice(0, 200)}`);
      if (paid) served.push(sent);
    }

    const expected = served.reduce((sum, sent) => sum + (sent.amount as bigint), 0n);
    // A stream's transfer confirms while it flows: give it the confirmation window's start to land.
    if (served.length > 0) await until(() => before.payer - this.balances.read().payer === expected, 5_000, 'the served payment lands').catch(() => undefined);
    const after = this.balances.read();
    const moved = { payer: before.payer - after.payer, recipient: after.recipient - before.recipient, feePayer: before.feePayerLamports - after.feePayerLamports };
    const wanted = { payer: expected, recipient: expected, feePayer: this.sponsoredFee * BigInt(served.filter((sent) => sent.sponsored).length) };
    if (moved.payer !== wanted.payer || moved.recipient !== wanted.recipient || moved.feePayer !== wanted.feePayer) {
      throw new Error(`money moved wrongly: statuses ${answers.map(({ res }) => res.status).join(', ')}, moved ${show(moved)}, expected ${show(wanted)}; ${answers[0].text.slice(0, 200)}`);
    }
    if (served.length > 0) {
      // Checked only when served (rare), since a mutated body has a quote of its own to ask for.
      const due = recipe.body.kind === 'valid' ? this.quote.amount : (await quote(this.gateway, body)).amount;
      for (const sent of served) {
        if ((sent.amount as bigint) < due) throw new Error(`served for ${sent.amount}, below the body's quote of ${due}`);
        this.paidMessages.add(sent.message as string);
        this.lastPaid = sent;
      }
      this.stats.served += served.length;
      this.stats.charged += expected;
    }
    this.previous = sends[sends.length - 1];
  }

  /** After the last run: nothing moved late, outside the case that caused it (read with the chain's own helpers, to cross-check `Balances`). */
  async settled(): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const { localnet } = this.paid;
    const moved = { payer: this.started.payer - localnet.usdcBalance(this.payer.publicKey), recipient: localnet.usdcBalance(this.paid.recipient.publicKey) - this.started.recipient };
    if (moved.payer !== this.stats.charged || moved.recipient !== this.stats.charged) throw new Error(`over the whole run ${show(moved)} moved for ${this.stats.charged} charged`);
  }

  private count(kind: string, status: number): void {
    this.stats.requests += 1;
    this.stats.byStatus.set(status, (this.stats.byStatus.get(status) ?? 0) + 1);
    const statuses = this.stats.byKind.get(kind) ?? new Map<number, number>();
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    this.stats.byKind.set(kind, statuses);
  }

  private header(recipe: HeaderRecipe): Sent {
    switch (recipe.kind) {
      case 'valid': {
        const header = this.valid(recipe.layout, recipe.casing);
        return this.intact(reencoded(header, recipe.encoding), header, recipe.layout);
      }
      case 'resend':
        return this.previous ?? this.header({ kind: 'valid', layout: 'client-paid', encoding: 'base64', casing: 'snake' });
      case 'replay':
        return this.lastPaid ? this.replay(this.lastPaid, recipe) : this.header({ kind: 'valid', layout: 'client-paid', encoding: 'base64', casing: 'snake' });
      case 'concurrent':
        return this.concurrent(recipe)[0];
      case 'valid-amount': {
        const amount = { zero: 0n, 'one less': this.quote.amount - 1n, 'one more': this.quote.amount + 1n, double: this.quote.amount * 2n, 'beyond the balance': this.balances.read().payer + 1n }[
          recipe.change
        ];
        const header = this.valid(recipe.layout, 'snake', amount);
        return { ...this.intact(header, header, recipe.layout), amount };
      }
      case 'truncated': {
        const header = this.valid('client-paid', 'snake');
        const text = recipe.encoding === 'base64' ? header : reencoded(header, 'raw');
        return broken(text.slice(0, Math.min(text.length - 1, Math.floor(recipe.at * text.length))));
      }
      case 'byte-flipped': {
        const header = this.valid(recipe.layout, 'snake');
        const payment = decoded(header);
        const bytes = Buffer.from(payment.payload.transaction, 'base64');
        bytes[Math.min(bytes.length - 1, Math.floor(recipe.at * bytes.length))] ^= recipe.mask;
        payment.payload.transaction = bytes.toString('base64');
        // A flipped byte may be one no signature covers (the sponsored fee payer's empty slot): then it is still the payer's transfer.
        return { header: encoded(payment), amount: this.quote.amount, sponsored: recipe.layout === 'sponsored', message: messageOf(payment.payload.transaction) };
      }
      case 'field': {
        const header = this.valid('client-paid', recipe.casing);
        const payment = decoded(header);
        const original = payment.payload.transaction;
        setPath(
          payment,
          FIELD_PATHS[recipe.path].map((name) => spelt(name, recipe.casing)),
          recipe.value,
        );
        // Some replacements keep the payment valid (the same value, or a field the gateway ignores): the transfer is then still intact.
        return transactionIn(payment) === original ? this.intact(encoded(payment), header, 'client-paid') : broken(encoded(payment));
      }
      case 'near-miss': {
        const header = this.valid(recipe.layout, 'snake');
        const payment = decoded(header);
        const [path, value] = NEAR_MISSES[recipe.which];
        setPath(
          payment,
          path.map((name) => spelt(name, 'snake')),
          value(this.world),
        );
        return this.intact(encoded(payment), header, recipe.layout);
      }
      case 'amount': {
        const header = this.valid('client-paid', 'snake');
        const payment = decoded(header);
        (payment.accepted as Record<string, unknown>).amount = recipe.value;
        return this.intact(encoded(payment), header, 'client-paid');
      }
      case 'scheme-payload':
        return this.schemePayload(recipe.shape, recipe.scheme, recipe.casing);
      case 'oversized':
        return this.oversized(this.valid(recipe.layout, 'snake'), recipe);
      case 'random-text':
        return broken(recipe.text);
      case 'random-base64':
        return broken(Buffer.from(recipe.bytes).toString('base64'));
    }
  }

  /** `header` sent as `text`: carrying the transfer of `header`, intact. */
  private intact(text: string, header: string, layout: Layout): Sent {
    return { header: text, amount: this.quote.amount, sponsored: layout === 'sponsored', message: messageOf(decoded(header).payload.transaction) };
  }

  private valid(layout: Layout, casing: Casing, amount = this.quote.amount): string {
    // The token accounts named outright: deriving them (a PDA search in pure JS) for every header cost more than the request.
    const { source, destination } = this.balances;
    const instructions = (parties: PaymentParties) => paymentInstructions(transferChecked(parties, { amount, source, destination }));
    return specPaymentHeader(this.paid, this.quote.header, { payer: this.payer, layout, casing, amount, instructions });
  }

  /** The last served payment again, in another form: it must never be served or charged a second time. */
  private replay(last: Sent, recipe: Extract<HeaderRecipe, { kind: 'replay' }>): Sent {
    const payment = decodePaymentSignature(last.header);
    if (recipe.how === 're-encoded') return { ...last, header: reencoded(encodePaymentSignature(payment, recipe.casing), recipe.encoding) };
    return { ...last, header: this.signedAgain(last.header, recipe.how) };
  }

  private concurrent({ layout, copies }: Extract<HeaderRecipe, { kind: 'concurrent' }>): Sent[] {
    const header = this.valid(layout, 'snake');
    const sent = this.intact(header, header, layout);
    const forms: Record<Exclude<Copy, 're-signed'>, () => string> = {
      same: () => header,
      raw: () => reencoded(header, 'raw'),
      base64url: () => reencoded(header, 'base64url'),
      camel: () => encodePaymentSignature(decodePaymentSignature(header), 'camel'),
    };
    return copies.map((copy) => ({ ...sent, header: copy === 're-signed' ? this.signedAgain(header, copy) : forms[copy]() }));
  }

  /** Another valid signature of the same message (a fresh nonce), or the same one with S + L, which strict verifiers refuse. */
  private signedAgain(header: string, how: 're-signed' | 'malleated'): string {
    const payment = decodePaymentSignature(header);
    if (payment.payload.kind !== 'exact') return header;
    const { signatures, message } = splitTransaction(Buffer.from(payment.payload.transaction, 'base64'));
    const slot = signerIndex(message, this.payer.publicKey);
    signatures[slot] = how === 're-signed' ? this.signer.signAgain(message) : malleated(signatures[slot]);
    return encodePaymentSignature({ ...payment, payload: { kind: 'exact', transaction: joinTransaction(signatures, message).toString('base64') } }, 'snake');
  }

  private schemePayload(shape: Extract<HeaderRecipe, { kind: 'scheme-payload' }>['shape'], scheme: string, casing: Casing): Sent {
    const header = this.valid('client-paid', casing);
    const payment = decoded(header);
    const transaction = payment.payload.transaction;
    const escrow = { depositTx: transaction, serviceId: randomBytes(32).toString('base64'), agentPubkey: this.payer.publicKey.toBase58() };
    const payload = {
      escrow,
      channel: { requestDigest: randomBytes(32).toString('hex'), cumulative: this.quote.amount.toString(), expirySlot: 1_000_000 },
      'exact and escrow': { transaction, ...escrow },
      empty: {},
    }[shape];
    const wire = { ...payment, accepted: { ...payment.accepted, scheme }, payload: Object.fromEntries(Object.entries(payload).map(([name, value]) => [spelt(name, casing), value])) };
    // The escrow shapes carry our signed transfer as their deposit: were one served, it must be charged like any payment.
    return shape === 'channel' || shape === 'empty' ? broken(encoded(wire)) : { header: encoded(wire), amount: this.quote.amount, sponsored: false, message: messageOf(transaction) };
  }

  /** A valid header grown past what any part of the gateway should accept: big arrays where there are none, or too many. */
  private oversized(header: string, { what, count, layout }: Extract<HeaderRecipe, { kind: 'oversized' }>): Sent {
    const payment = decoded(header);
    const transaction = Buffer.from(payment.payload.transaction, 'base64');
    const withTransaction = (bytes: Buffer): string => encoded({ ...payment, payload: { ...payment.payload, transaction: bytes.toString('base64') } });
    switch (what) {
      case 'json-array': {
        const spots = [['accepted', 'extra'], ['accepted', 'amount'], ['resource', 'url'], ['payload', 'transaction'], ['x402_version']];
        setPath(
          payment,
          spots[count % spots.length],
          Array.from({ length: Math.min(count, 40_000) }, (_, i) => i),
        );
        return broken(encoded(payment));
      }
      case 'nested': {
        // Written as text: deep enough to overflow a recursive walker, including JSON.stringify's.
        const depth = Math.min(count, 20_000);
        return broken(Buffer.from(JSON.stringify({ ...payment, payload: 0 }).replace('"payload":0', `"payload":${'['.repeat(depth)}${']'.repeat(depth)}`)).toString('base64'));
      }
      case 'signatures': {
        // A shortvec signature count of `count` in front of the message, with as many 64-byte signatures as fit 40 KB.
        const { message } = splitTransaction(transaction);
        return broken(withTransaction(Buffer.concat([shortvec(count), Buffer.alloc(Math.min(count, 600) * 64, 7), message])));
      }
      case 'transaction-bytes':
        return broken(withTransaction(Buffer.concat([transaction, Buffer.alloc(Math.min(count, 36_000), 1)])));
      default: {
        // Signed by the payer, so that only the message's shape, not a bad signature, can refuse it. A small
        // growth may still be a payment the chain takes (extra accounts on a compute-budget instruction, a
        // longer memo): if served, it is charged like any other, once, by the transfer's amount.
        const message = grownMessage(splitTransaction(transaction).message, what, count);
        return { header: withTransaction(this.signed(transaction, message)), amount: this.quote.amount, sponsored: layout === 'sponsored', message: message.toString('base64') };
      }
    }
  }

  private signed(original: Buffer, message: Buffer): Buffer {
    const split = splitTransaction(original);
    split.signatures[signerIndex(split.message, this.payer.publicKey)] = this.signer.sign(message);
    return joinTransaction(split.signatures, message);
  }

  private body(recipe: BodyRecipe): Record<string, unknown> {
    switch (recipe.kind) {
      case 'valid':
        return chatBody({ stream: recipe.stream });
      case 'mutated':
        return chatBody({ stream: recipe.stream, [recipe.field]: recipe.value });
      case 'oversized': {
        const n = recipe.count;
        const grown = {
          messages: { messages: Array.from({ length: Math.min(n, 5_000) }, () => ({ role: 'user', content: 'hi' })) },
          content: { messages: [{ role: 'user', content: 'a '.repeat(n) }] },
          stop: { stop: Array.from({ length: Math.min(n, 5_000) }, (_, i) => `s${i}`) },
          'nested-content': { messages: [{ role: 'user', content: Array.from({ length: Math.min(n, 5_000) }, () => ({ type: 'text', text: 'x' })) }] },
        }[recipe.what];
        return chatBody({ stream: recipe.stream, ...grown });
      }
    }
  }
}

interface DecodedPayment {
  accepted: Record<string, unknown>;
  payload: { transaction: string };
  [field: string]: unknown;
}

/** Our own headers only: base64 JSON, as `specPaymentHeader` writes it. */
function decoded(header: string): DecodedPayment {
  return JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as DecodedPayment;
}

function encoded(payment: unknown): string {
  return Buffer.from(JSON.stringify(payment)).toString('base64');
}

/** A base64 header in another form of the same JSON (decodable), or broken in a way a lenient decoder might still read. */
function reencoded(header: string, encoding: Encoding): string {
  const json = Buffer.from(header, 'base64').toString('utf8');
  switch (encoding) {
    case 'base64':
      return header;
    case 'raw':
      return json;
    case 'base64url':
      return Buffer.from(json).toString('base64url');
    case 'padded-raw':
      return `{ ${json.slice(1, -1).replace(/,"/g, ' ,\t"').replace(/":/g, '" : ')} }`;
    case 'unpadded-base64':
      return header.replace(/=+$/, '');
    case 'split-base64':
      return header.replace(/(.{76})/g, '$1 ');
  }
}

/** The transaction a mutated header still carries, if any (`payload` and `transaction` are spelt alike in both casings). */
function transactionIn(payment: DecodedPayment): unknown {
  const payload = payment.payload as unknown;
  return typeof payload === 'object' && payload !== null ? (payload as { transaction?: unknown }).transaction : undefined;
}

/** A header that carries no intact transaction: nothing may move for it. */
function broken(header: string): Sent {
  return { header, amount: null, sponsored: false, message: null };
}

function spelt(name: string, casing: Casing): string {
  return casing === 'snake' ? toSnake(name) : name;
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node: Record<string, unknown> = target;
  for (const key of path.slice(0, -1)) {
    if (typeof node[key] !== 'object' || node[key] === null) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  node[path[path.length - 1]] = value;
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function offByOne(text: string): string {
  const last = text[text.length - 1];
  return text.slice(0, -1) + BASE58[(BASE58.indexOf(last) + 1) % BASE58.length];
}

// --- Solana wire bytes: the transaction surgery web3.js will not do (it refuses oversized messages) ---

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

function readShortvec(bytes: Buffer, at: number): { value: number; next: number } {
  let value = 0;
  for (let i = 0; i < 3; i += 1) {
    const byte = bytes[at + i];
    if (byte === undefined) throw new Error('truncated shortvec');
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return { value, next: at + i + 1 };
  }
  throw new Error('shortvec longer than 3 bytes');
}

function splitTransaction(transaction: Buffer): { signatures: Buffer[]; message: Buffer } {
  const { value, next } = readShortvec(transaction, 0);
  if (next + value * 64 > transaction.length) throw new Error('more signatures than bytes');
  const signatures = Array.from({ length: value }, (_, i) => Buffer.from(transaction.subarray(next + i * 64, next + (i + 1) * 64)));
  return { signatures, message: transaction.subarray(next + value * 64) };
}

function joinTransaction(signatures: Buffer[], message: Buffer): Buffer {
  return Buffer.concat([shortvec(signatures.length), ...signatures, message]);
}

/** The signed message of a base64 transaction, base64; null when it does not split. */
function messageOf(transaction: string | null): string | null {
  if (transaction === null) return null;
  try {
    return splitTransaction(Buffer.from(transaction, 'base64')).message.toString('base64');
  } catch {
    return null;
  }
}

function signerIndex(message: Buffer, signer: PublicKey): number {
  return VersionedMessage.deserialize(message).staticAccountKeys.findIndex((key) => key.equals(signer));
}

/** The v0 message with one part grown to `count`: instructions, account keys, one instruction's accounts or data. */
function grownMessage(bytes: Buffer, what: OversizedPart, count: number): Buffer {
  const message = VersionedMessage.deserialize(bytes);
  const keys = message.staticAccountKeys.map((key) => key.toBuffer());
  let instructions = message.compiledInstructions.map((ix) => ({ program: ix.programIdIndex, accounts: [...ix.accountKeyIndexes], data: Buffer.from(ix.data) }));
  // The transfer or the memo or a compute-budget instruction, as `count` falls.
  const grown = instructions[count % instructions.length];
  if (what === 'instructions') instructions = Array.from({ length: Math.min(count, 4_000) }, (_, i) => instructions[i % instructions.length]);
  if (what === 'accounts') keys.push(...Array.from({ length: Math.min(count, 2_000) }, () => randomBytes(32)));
  if (what === 'instruction-accounts') grown.accounts = Array.from({ length: Math.min(count, 45_000) }, (_, i) => i % keys.length);
  if (what === 'instruction-data') grown.data = Buffer.alloc(Math.min(count, 45_000), 0x61);
  const { header } = message;
  return Buffer.concat([
    Buffer.from([0x80, header.numRequiredSignatures, header.numReadonlySignedAccounts, header.numReadonlyUnsignedAccounts]),
    shortvec(keys.length),
    ...keys,
    new PublicKey(message.recentBlockhash).toBuffer(),
    shortvec(instructions.length),
    ...instructions.flatMap((ix) => [Buffer.from([ix.program]), shortvec(ix.accounts.length), Buffer.from(ix.accounts), shortvec(ix.data.length), ix.data]),
    shortvec(0),
  ]);
}

// --- Ed25519 by hand: a second valid signature of one message needs a nonce of our choosing ---

const P = 2n ** 255n - 19n;
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const mod = (a: bigint, m = P): bigint => ((a % m) + m) % m;
const power = (base: bigint, exponent: bigint): bigint => {
  let result = 1n;
  let b = mod(base);
  for (let e = exponent; e > 0n; e >>= 1n) {
    if (e & 1n) result = mod(result * b);
    b = mod(b * b);
  }
  return result;
};
const D2 = mod(2n * -121665n * power(121666n, P - 2n));
type Point = readonly [bigint, bigint, bigint, bigint];
const BX = 15112221349535400772501151409588531511454012693041857206046113283949847762202n;
const BY = 46316835694926478169428394003475163141307993866256225615783033603165251855960n;
const BASE: Point = [BX, BY, 1n, mod(BX * BY)];

/** Extended twisted Edwards addition (a = -1): complete, so it doubles too. */
function add([x1, y1, z1, t1]: Point, [x2, y2, z2, t2]: Point): Point {
  const a = mod((y1 - x1) * (y2 - x2));
  const b = mod((y1 + x1) * (y2 + x2));
  const c = mod(t1 * D2 * t2);
  const d = mod(2n * z1 * z2);
  const [e, f, g, h] = [b - a, d - c, d + c, b + a];
  return [mod(e * f), mod(g * h), mod(f * g), mod(e * h)];
}

function times(point: Point, scalar: bigint): Point {
  let result: Point = [0n, 1n, 1n, 0n];
  let addend = point;
  for (let k = scalar; k > 0n; k >>= 1n) {
    if (k & 1n) result = add(result, addend);
    addend = add(addend, addend);
  }
  return result;
}

const littleEndian = (bytes: Uint8Array): bigint => BigInt(`0x${Buffer.from(bytes).reverse().toString('hex') || '0'}`);
const toLittleEndian = (value: bigint): Buffer => Buffer.from(value.toString(16).padStart(64, '0'), 'hex').reverse();

function encodePoint([x, y, z]: Point): Buffer {
  const inverse = power(z, P - 2n);
  return toLittleEndian(mod(y * inverse) | ((mod(x * inverse) & 1n) << 255n));
}

const sha512 = (...parts: Uint8Array[]): Buffer => createHash('sha512').update(Buffer.concat(parts)).digest();
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

/** S + L: the same point equation holds, so only a verifier that insists on S < L tells it apart. */
function malleated(signature: Buffer): Buffer {
  return Buffer.concat([signature.subarray(0, 32), toLittleEndian(littleEndian(signature.subarray(32)) + L)]);
}

class Ed25519Signer {
  private readonly privateKey: KeyObject;
  private readonly publicKey: KeyObject;
  private readonly scalar: bigint;
  private readonly publicBytes: Buffer;

  constructor(keypair: Keypair) {
    const seed = keypair.secretKey.subarray(0, 32);
    this.privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
    this.publicBytes = keypair.publicKey.toBuffer();
    this.publicKey = createPublicKey({ key: Buffer.concat([SPKI_ED25519, this.publicBytes]), format: 'der', type: 'spki' });
    const hashed = sha512(seed);
    hashed[0] &= 248;
    hashed[31] = (hashed[31] & 127) | 64;
    this.scalar = littleEndian(hashed.subarray(0, 32));
  }

  /** RFC 8032's deterministic signature: the one web3.js would make. */
  sign(message: Buffer): Buffer {
    return sign(null, message, this.privateKey);
  }

  /** A valid signature with a random nonce: another signature of the same message by the same key. */
  signAgain(message: Buffer): Buffer {
    const nonce = mod(littleEndian(randomBytes(64)), L);
    const r = encodePoint(times(BASE, nonce));
    const challenge = mod(littleEndian(sha512(r, this.publicBytes, message)), L);
    const signature = Buffer.concat([r, toLittleEndian(mod(nonce + challenge * this.scalar, L))]);
    if (!verify(null, message, this.publicKey, signature)) throw new Error('the hand-made Ed25519 signature does not verify');
    return signature;
  }
}

interface Balance {
  payer: bigint;
  recipient: bigint;
  feePayerLamports: bigint;
}

/**
 * What the properties watch, read straight from the chain's accounts: `localnet.usdcBalance`
 * derives the associated token account on every call, which at four reads a case was most of a
 * run's time. `settled` cross-checks the totals with `usdcBalance` itself.
 */
class Balances {
  readonly source: PublicKey;
  readonly destination: PublicKey;

  constructor(
    private readonly paid: PaidWorld,
    payer: PublicKey,
  ) {
    this.source = getAssociatedTokenAddressSync(paid.mint, payer, true);
    this.destination = getAssociatedTokenAddressSync(paid.mint, paid.recipient.publicKey, true);
  }

  read(): Balance {
    return { payer: this.tokens(this.source), recipient: this.tokens(this.destination), feePayerLamports: this.paid.localnet.solBalance(this.paid.feePayer.publicKey) };
  }

  private tokens(account: PublicKey): bigint {
    const data = this.paid.localnet.svm.getAccount(account)?.data;
    return data ? AccountLayout.decode(Buffer.from(data)).amount : 0n;
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
