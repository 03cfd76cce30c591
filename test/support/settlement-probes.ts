import { randomBytes } from 'node:crypto';
import { get as httpGet } from 'node:http';
import { Keypair, LAMPORTS_PER_SOL, PublicKey, TransactionInstruction } from '@solana/web3.js';
import type { RunningGateway } from '../../src/gateway';
import type { PaidWorld } from './paid-gateway';
import { paymentTransaction, toBase64, transferChecked } from './payment-transactions';

/**
 * Probes for the settlement-lifecycle tests: what moved on chain, what a receipt says, how far a
 * stream got. Everything reads the local chain or the gateway's public routes, never its internals.
 */

/** Polls `condition` every 25 ms; throws `label` when it is still false after `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number, label: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${label}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A payer of its own for one test (1 SOL, `usdc` atomic USDC), so that balances and in-flight exposure never mix between tests. */
export function fundedPayer(world: PaidWorld, usdc = 5_000_000n): Keypair {
  const payer = Keypair.generate();
  world.localnet.airdrop(payer.publicKey, LAMPORTS_PER_SOL);
  world.localnet.fundUsdc(payer.publicKey, usdc);
  return payer;
}

/** What a test watches on chain: the payer's and recipient's USDC, the fee payer's lamports, the landed transactions. */
export interface ChainSnapshot {
  payer: bigint;
  recipient: bigint;
  feePayerLamports: bigint;
  landed: number;
}

export function snapshot(world: PaidWorld, payer: Keypair): ChainSnapshot {
  return {
    payer: world.localnet.usdcBalance(payer.publicKey),
    recipient: world.localnet.usdcBalance(world.recipient.publicKey),
    feePayerLamports: world.localnet.solBalance(world.feePayer.publicKey),
    landed: world.localnet.sentTransactions().length,
  };
}

/**
 * The change since `before`. `landed` counts transactions that landed over RPC (failed landings
 * included), less the ones this test sent itself (`ownSignatures`, e.g. a drain).
 */
export function changeSince(world: PaidWorld, payer: Keypair, before: ChainSnapshot, ownSignatures: string[] = []): ChainSnapshot {
  const now = snapshot(world, payer);
  const own = world.localnet
    .sentTransactions()
    .slice(before.landed)
    .filter((sent) => ownSignatures.includes(sent.signature)).length;
  return {
    payer: now.payer - before.payer,
    recipient: now.recipient - before.recipient,
    feePayerLamports: now.feePayerLamports - before.feePayerLamports,
    landed: now.landed - before.landed - own,
  };
}

/** Waits (3 s at most) until the one transfer of `payer`'s payment since `before` has landed. */
export function transferLands(world: PaidWorld, payer: Keypair, before: ChainSnapshot): Promise<void> {
  return until(() => changeSince(world, payer, before).landed === 1, 3_000, 'the transfer lands');
}

/** One JSON-RPC call to the local chain (not through the gateway's RPC proxy). */
export async function rpc<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const answer = (await res.json()) as { result?: T; error?: { code: number; message: string } };
  if (answer.error) throw new Error(`${method}: ${answer.error.code} ${answer.error.message}`);
  return answer.result as T;
}

const MEMO_PROGRAM = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');

/**
 * The payer empties its USDC account: a signed TransferChecked of its whole balance to a fresh
 * wallet, sent over RPC like any wallet would (client-paid fee). Returns the drain's signature
 * (to leave it out of the gateway's landed transactions) and what it moved.
 */
export async function drainUsdc(world: PaidWorld, payer: Keypair): Promise<{ signature: string; amount: bigint; sink: PublicKey }> {
  const amount = world.localnet.usdcBalance(payer.publicKey);
  const sink = Keypair.generate().publicKey;
  world.localnet.createTokenAccount(sink);
  const parties = { mint: world.mint, payTo: sink, payer, gatewayFeePayer: world.feePayer, recentBlockhash: world.localnet.latestBlockhash().blockhash };
  const memo = new TransactionInstruction({ programId: MEMO_PROGRAM, keys: [], data: Buffer.from(randomBytes(16).toString('hex')) });
  const transaction = paymentTransaction(parties, { instructions: [transferChecked(parties, { amount }), memo] });
  const signature = await rpc<string>(world.localnet.url, 'sendTransaction', [toBase64(transaction), { encoding: 'base64' }]);
  if (world.localnet.usdcBalance(payer.publicKey) !== 0n) throw new Error('the drain did not empty the payer');
  return { signature, amount, sink };
}

export interface ReceiptView {
  id: string;
  status: 'pending' | 'settled' | 'failed' | 'not_charged';
  amount_charged_atomic: string;
  delivery?: 'complete' | 'partial' | 'client_disconnected' | null;
  broadcast_at?: string | null;
  transaction_signature?: string;
  [field: string]: unknown;
}

/** The statuses a receipt ends in. */
export const FINAL_STATUSES: Array<ReceiptView['status']> = ['settled', 'failed', 'not_charged'];

const RECEIPT_PATH = /\/v1\/receipts\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/**
 * Where an answer's receipt is: the X-Gw-Receipt header, else a receipt path named in the body
 * (an error message or an SSE error event); null when neither names one.
 */
export function receiptPathOf(res: Response, bodyText: string): string | null {
  return res.headers.get('x-gw-receipt') ?? RECEIPT_PATH.exec(bodyText)?.[0] ?? null;
}

export async function fetchReceipt(gateway: RunningGateway, path: string | null): Promise<ReceiptView> {
  if (path === null) throw new Error('the answer names no receipt (no X-Gw-Receipt header, no receipt path in its body)');
  const res = await fetch(`${gateway.url}${path}`);
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as ReceiptView;
}

/**
 * Polls the receipt until `ready` holds; returns the last receipt read either way, so that the
 * test's expectation shows it. Every 500 ms: the route allows 20 lookups a minute per client.
 */
export async function receiptWhen(gateway: RunningGateway, path: string | null, ready: (receipt: ReceiptView) => boolean, timeoutMs: number): Promise<ReceiptView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const receipt = await fetchReceipt(gateway, path);
    if (ready(receipt) || Date.now() > deadline) return receipt;
    await sleep(500);
  }
}

/** The receipt an answer names (`raw`: its body), read until it is final, with its delivery once settled (3 s at most). */
export function finalReceipt(gateway: RunningGateway, res: Response, raw: string): Promise<ReceiptView> {
  // A settled receipt's delivery is written as its request ends, just after the answer went out.
  return receiptWhen(gateway, receiptPathOf(res, raw), (r) => r.status !== 'pending' && (r.status !== 'settled' || r.delivery !== null), 3_000);
}

/** One receipt as read so far by `readReceiptsUntil`. */
export interface ReceiptRead {
  /** The last receipt read, null when none could be read. */
  receipt: ReceiptView | null;
  /** The last answer of the receipt route, for the failure message. */
  last: string;
}

/**
 * Reads receipts until `done` holds for each or `timeoutMs` is over; never throws, the caller
 * judges. Round after round, each path is read from the next of `gateways` in turn; a null path
 * (an answer that named no receipt) is never read. Each read comes from a loopback address of its
 * own: the receipt route's per-IP limit (20 reads a minute) is not what these tests are about.
 */
export async function readReceiptsUntil(gateways: RunningGateway[], paths: Array<string | null>, done: (receipt: ReceiptView) => boolean, timeoutMs: number): Promise<ReceiptRead[]> {
  const reads: ReceiptRead[] = paths.map((path) => ({ receipt: null, last: path === null ? 'no X-Gw-Receipt header' : 'not read yet' }));
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    const open = paths.flatMap((path, i) => {
      const { receipt } = reads[i];
      return path !== null && !(receipt !== null && done(receipt)) ? [i] : [];
    });
    if (open.length === 0 || Date.now() > deadline) return reads;
    await Promise.all(
      open.map(async (i) => {
        const gateway = gateways[(attempt + i) % gateways.length];
        try {
          const res = await getFrom(nextLoopbackAddress(), `${gateway.url}${paths[i]}`);
          reads[i].last = `${res.status} ${res.body.slice(0, 300)}`;
          if (res.status === 200) reads[i].receipt = JSON.parse(res.body) as ReceiptView;
        } catch (err) {
          reads[i].last = String(err);
        }
      }),
    );
    await sleep(250);
  }
}

let loopbackHost = 0;
/** 127.1.0.1, 127.1.0.2, ...: Linux routes all of 127/8 to the loopback interface. */
function nextLoopbackAddress(): string {
  loopbackHost = (loopbackHost % 65_000) + 1;
  return `127.1.${loopbackHost >> 8}.${loopbackHost & 0xff || 1}`;
}

function getFrom(localAddress: string, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpGet(url, { localAddress, agent: false, timeout: 5_000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('receipt read timed out')));
    req.on('error', reject);
  });
}

/** The `data:` payloads of an SSE text, in order. */
export function sseDataOf(text: string): string[] {
  return text
    .split(/\r?\n\r?\n/)
    .flatMap((block) => block.split(/\r?\n/).filter((line) => line.startsWith('data: ')))
    .map((line) => line.slice('data: '.length));
}

/** The assistant text of OpenAI chunk payloads (`[DONE]` and error events skipped). */
export function streamedContent(data: string[]): string {
  return data
    .filter((payload) => payload.startsWith('{'))
    .map((payload) => JSON.parse(payload) as { choices?: Array<{ delta?: { content?: string | null } }> })
    .map((chunk) => chunk.choices?.[0]?.delta?.content ?? '')
    .join('');
}

/** The error events of an SSE stream (`data: {"error":{...}}`). */
export function errorEvents(data: string[]): Array<{ type?: string; message?: string }> {
  return data
    .filter((payload) => payload.startsWith('{'))
    .map((payload) => JSON.parse(payload) as { error?: { type?: string; message?: string } })
    .flatMap((event) => (event.error ? [event.error] : []));
}

/** Reads an SSE body incrementally: `next(predicate)` reads until the text so far satisfies it; `rest()` reads to the end. */
export class StreamReader {
  text = '';
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private done = false;

  constructor(res: Response) {
    this.reader = (res.body as ReadableStream<Uint8Array>).getReader();
  }

  get data(): string[] {
    return sseDataOf(this.text);
  }

  async next(predicate: (reader: StreamReader) => boolean, timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      if (this.done) throw new Error(`the stream ended first; it said: ${this.text.slice(0, 2000)}`);
      if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms; the stream said: ${this.text.slice(0, 2000)}`);
      await this.readOnce();
    }
  }

  async rest(): Promise<string> {
    while (!this.done) await this.readOnce();
    return this.text;
  }

  cancel(): Promise<void> {
    return this.reader.cancel().catch(() => undefined);
  }

  private async readOnce(): Promise<void> {
    const { value, done } = await this.reader.read();
    if (done) this.done = true;
    else this.text += this.decoder.decode(value, { stream: true });
  }
}

/** The first content event (a non-empty delta) has arrived. */
export const hasContent = (reader: StreamReader): boolean => streamedContent(reader.data).length > 0;

/** A reply of `words` words, which the fakes stream one word per event. */
export function longText(words: number, prefix = 'word'): string {
  return Array.from({ length: words }, (_, i) => `${prefix}${i + 1}`).join(' ');
}
