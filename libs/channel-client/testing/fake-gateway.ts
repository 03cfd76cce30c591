import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import bs58 from 'bs58';
import { decodePaymentSignature, encodePaymentRequiredHeader, toHeaderForm, type ChannelVoucher, type PaymentRequiredBody } from '../../x402';
import { a2aDigestInput, closeMessage, voucherMessage } from '../messages';
import { verifySignature } from '../signer';

const MIN_EXPIRY_SLOTS = 50n;
const NETWORK = 'solana:EtWTRABZaYq6iMfeYKouRu166VPUyU1x';
const MINT = bs58.encode(new Uint8Array(32).fill(4));
const RECIPIENT = bs58.encode(new Uint8Array(32).fill(7));

/** One request the fake answered, for the specs to look at. */
export interface Served {
  readonly paid: boolean;
  readonly status: number;
  /** The voucher's cumulative, when one was sent. */
  readonly cumulative?: bigint;
  readonly nonce?: number;
}

interface Refusal {
  status: number;
  code: string;
  /** Whether it tells the channel's `last_cumulative` (every refusal after the signature). */
  last: boolean;
  headers?: Record<string, string>;
}

interface A2ACall {
  id: number;
  params: { message: { taskId?: string; metadata: Record<string, unknown> } };
}

/**
 * A gateway's channel side, as small as the client's specs need, on 127.0.0.1 and an ephemeral
 * port: any POST outside /v1/channel is a paid route that answers 402 with `quote`, then checks a
 * voucher in the gateway's order (signature, lock, digest, expiry, delta, deposit), and the
 * channel routes the client reads, and A2A's `message/send`. Its fields are the channel's state, which specs set directly.
 */
export class FakeChannelGateway {
  readonly channelId = bs58.encode(crypto.getRandomValues(new Uint8Array(32)));
  readonly served: Served[] = [];
  lastCumulative = 0n;
  deposited = 1_000_000n;
  currentSlot = 350_000_000n;
  quote = 2625n;
  /** How far the delta a draw must have is off the 402's quote, as if the price moved between the two. */
  priceMoved = 0n;
  /** How many paid requests are still to be refused as busy (429 `retry-after: 1`), as if another client drew. */
  busyTimes = 0;
  /** How many paid requests are still to fail upstream with 503, nothing drawn. */
  failTimes = 0;
  /** How long a draw is served, so overlapping draws would meet. */
  serveMs = 0;
  /** The most draws that were ever being served at once. */
  mostConcurrentDraws = 0;
  private drawing = 0;
  private readonly server: Server;

  private constructor(private readonly sessionKey: string) {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => respond(response, 500, { error: { code: 'fake.crashed', message: String(error) } }));
    });
  }

  static async start(sessionKey: string): Promise<FakeChannelGateway> {
    const gateway = new FakeChannelGateway(sessionKey);
    await new Promise<void>((resolve) => gateway.server.listen(0, '127.0.0.1', resolve));
    return gateway;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve, reject) => this.server.close((error) => (error ? reject(error) : resolve())));
  }

  /** Answers one request; returns the status. */
  private async handle(request: IncomingMessage, response: ServerResponse): Promise<number> {
    const body = await bytesOf(request);
    const path = request.url ?? '/';
    if (request.method === 'GET' && path === '/v1/channel/config') {
      return respond(response, 200, { enabled: true, current_slot: Number(this.currentSlot), min_expiry_slots: Number(MIN_EXPIRY_SLOTS), network: NETWORK, mint: MINT });
    }
    if (request.method === 'GET' && path === `/v1/channel/${this.channelId}`) return respond(response, 200, this.record('open'));
    if (request.method === 'POST' && path === '/v1/channel/close') return this.close(JSON.parse(body.toString('utf8')) as Record<string, string>, response);
    if (request.method === 'POST' && path === '/a2a') return this.a2a(JSON.parse(body.toString('utf8')) as A2ACall, response);
    const payment = request.headers['payment-signature'];
    if (typeof payment !== 'string') {
      this.served.push({ paid: false, status: 402 });
      const challenge = this.challenge(path);
      return respond(response, 402, challenge, { 'PAYMENT-REQUIRED': encodePaymentRequiredHeader(toHeaderForm(challenge)) });
    }
    const { voucher } = decodePaymentSignature(payment).payload as { voucher: ChannelVoucher };
    const cumulative = BigInt(voucher.cumulative);
    const status = await this.draw(voucher, cumulative, body, response);
    this.served.push({ paid: true, status, cumulative, nonce: voucher.nonce as number });
    return status;
  }

  /** A REST draw: the gateway's checks, then the answer. */
  private async draw(voucher: ChannelVoucher, cumulative: bigint, body: Buffer, response: ServerResponse): Promise<number> {
    const refusal = this.check(voucher, cumulative, body);
    if (refusal) return refusal.last ? this.refuse(response, refusal.status, refusal.code, refusal.headers) : respond(response, refusal.status, { error: { code: refusal.code } });
    if (this.failTimes > 0) {
      this.failTimes--;
      return respond(response, 503, { error: { code: 'provider.unavailable' } });
    }
    await this.serve(cumulative);
    return respond(response, 200, { echo: body.toString('base64') });
  }

  /**
   * A2A's `message/send`, as small as the client needs: without `taskId` a task awaiting the
   * quote; with one, its voucher checked against the task's digest, a refusal as the JSON-RPC
   * error the gateway sends (-32007, a busy channel -32603), a draw as the completed task.
   */
  private async a2a(call: A2ACall, response: ServerResponse): Promise<number> {
    const { message } = call.params;
    const reply = (body: Record<string, unknown>) => respond(response, 200, { jsonrpc: '2.0', id: call.id, ...body });
    if (message.taskId === undefined) {
      const required = this.challenge('/a2a');
      return reply({ result: { kind: 'task', id: `a2a_${this.served.length}`, status: { state: 'input-required', message: { metadata: { 'x402.payment.required': required } } } } });
    }
    const { voucher } = decodePaymentSignature(JSON.stringify(message.metadata['x402.payment.payload'])).payload as { voucher: ChannelVoucher };
    const cumulative = BigInt(voucher.cumulative);
    const refusal = this.check(voucher, cumulative, a2aDigestInput(message.taskId));
    this.served.push({ paid: true, status: refusal?.status ?? 200, cumulative, nonce: voucher.nonce as number });
    if (refusal) {
      const data = { reason: refusal.code, retryable: refusal.status === 429, ...(refusal.last ? { last_cumulative: String(this.lastCumulative) } : {}) };
      return reply({ error: { code: refusal.status === 429 ? -32603 : -32007, message: refusal.code, data } });
    }
    await this.serve(cumulative);
    const metadata = { 'x402.payment.status': 'payment-completed', 'x402.payment.receipts': [{ tx_signature: '', receipt: '/v1/receipts/fake' }] };
    return reply({ result: { kind: 'task', id: message.taskId, status: { state: 'completed', message: { metadata } } } });
  }

  /** The gateway's checks in its order: the refusal, and whether it tells `last_cumulative`; null for a draw. */
  private check(voucher: ChannelVoucher, cumulative: bigint, bound: Uint8Array): Refusal | null {
    const message = voucherMessage({
      channelId: bs58.decode(voucher.channelId as string),
      cumulative,
      expirySlot: BigInt(voucher.expirySlot),
      nonce: BigInt(voucher.nonce as number),
      requestDigest: Buffer.from(voucher.requestDigest, 'base64'),
    });
    if (voucher.channelId !== this.channelId) return { status: 404, code: 'payment.channel_not_open', last: false };
    if (!verifySignature(message, Buffer.from(voucher.signature as string, 'base64'), this.sessionKey)) return { status: 401, code: 'payment.channel_bad_signature', last: false };
    if (this.drawing > 0 || this.busyTimes > 0) {
      this.busyTimes = Math.max(0, this.busyTimes - 1);
      return { status: 429, code: 'rate_limit.channel_busy', last: true, headers: { 'retry-after': '1' } };
    }
    const refused = (code: string): Refusal => ({ status: 402, code, last: true });
    if (createHash('sha256').update(bound).digest('base64') !== voucher.requestDigest) return refused('payment.channel_digest_mismatch');
    if (BigInt(voucher.expirySlot) - this.currentSlot < MIN_EXPIRY_SLOTS) return refused('payment.channel_expired');
    if (cumulative <= this.lastCumulative) return refused('payment.channel_stale');
    if (cumulative - this.lastCumulative !== this.quote + this.priceMoved) return refused('payment.channel_wrong_delta');
    if (cumulative > this.deposited) return refused('payment.channel_overdraw');
    return null;
  }

  private async serve(cumulative: bigint): Promise<void> {
    this.drawing++;
    this.mostConcurrentDraws = Math.max(this.mostConcurrentDraws, this.drawing);
    await new Promise((resolve) => setTimeout(resolve, this.serveMs));
    this.lastCumulative = cumulative;
    this.drawing--;
  }

  private close(request: Record<string, string>, response: ServerResponse): number {
    const signed = verifySignature(closeMessage(bs58.decode(this.channelId)), Buffer.from(request.signature, 'base64'), this.sessionKey);
    if (request.channel_id !== this.channelId || !signed) return respond(response, 401, { error: { code: 'payment.channel_bad_signature', message: 'bad close signature' } });
    return respond(response, 202, { ...this.record('closing'), refund: String(this.deposited - this.lastCumulative), payout: String(this.lastCumulative) });
  }

  private refuse(response: ServerResponse, status: number, code: string, headers: Record<string, string> = {}): number {
    const last = String(this.lastCumulative);
    return respond(response, status, { error: { code, message: code, last_cumulative: last } }, { 'X-Gw-Channel-Last-Cumulative': last, ...headers });
  }

  private record(status: string): Record<string, string> {
    return { channel_id: this.channelId, status, deposited: String(this.deposited), last_cumulative: String(this.lastCumulative) };
  }

  private challenge(url: string): PaymentRequiredBody {
    const terms = { network: NETWORK, amount: String(this.quote), asset: MINT, pay_to: RECIPIENT, max_timeout_seconds: 300 } as const;
    return {
      x402_version: 2,
      resource: { url, method: 'POST' },
      accepts: [{ scheme: 'exact', ...terms }],
      cost_breakdown: { provider_cost: '0', platform_fee: '0', total: '0', currency: 'USDC', fee_percent: 5 },
      error: 'Payment required',
    };
  }
}

function respond(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): number {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  return status;
}

async function bytesOf(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
