import bs58 from 'bs58';
import { isJsonObject } from '../json/json-object';
import { envelopeError } from './error-envelope';
import { CHANNEL_ID_BYTES } from './messages';
import type { ChannelSigner } from './signer';

/** The fetch the client is given: the global one, undici's, or a test's. */
export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

const DIGITS = /^[0-9]+$/;

/** A channel route that did not answer 2xx. */
export class ChannelRouteError extends Error {
  constructor(
    readonly status: number,
    /** The envelope's `error.code`, when the answer had one. */
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'ChannelRouteError';
  }
}

/** `POST /v1/channel/close`'s answer; amounts are atomic decimal strings. */
export interface ChannelCloseAnswer {
  readonly channel_id: string;
  readonly status: string;
  readonly deposited: string;
  readonly last_cumulative: string;
  readonly refund: string;
  readonly payout: string;
  readonly close_signature?: string;
}

/** The channel id's 32 bytes, from its base58. */
export function channelIdBytes(channelId: string): Uint8Array {
  const bytes = bs58.decode(channelId);
  if (bytes.length !== CHANNEL_ID_BYTES) throw new RangeError(`a channel id is ${CHANNEL_ID_BYTES} bytes in base58 (got ${bytes.length})`);
  return bytes;
}

/** `GET /v1/channel/{id}` → `last_cumulative`. */
export async function readLastCumulative(fetch: Fetch, gateway: string | URL, channelId: string): Promise<bigint> {
  const { last_cumulative: value } = await answerOf(await fetch(route(gateway, `v1/channel/${encodeURIComponent(channelId)}`)));
  if (typeof value !== 'string' || !DIGITS.test(value)) throw new TypeError('the channel record has no last_cumulative decimal string');
  return BigInt(value);
}

/** `GET /v1/channel/config` → `current_slot` (a number, or a decimal string). */
export async function readCurrentSlot(fetch: Fetch, gateway: string | URL): Promise<bigint> {
  const { current_slot: value } = await answerOf(await fetch(route(gateway, 'v1/channel/config')));
  if (!Number.isSafeInteger(value) && !(typeof value === 'string' && DIGITS.test(value))) throw new TypeError('the channel config has no current_slot');
  return BigInt(value as number | string);
}

/** Asks the gateway to close the channel, signed by its session key; repeating it is harmless (the close is idempotent). */
export async function closeChannel(fetch: Fetch, gateway: string | URL, channelId: string, signer: ChannelSigner): Promise<ChannelCloseAnswer> {
  const signature = Buffer.from(signer.signClose(channelIdBytes(channelId))).toString('base64');
  const response = await fetch(route(gateway, 'v1/channel/close'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ channel_id: channelId, signature }),
  });
  return (await answerOf(response)) as unknown as ChannelCloseAnswer;
}

/** The route under the gateway's base URL, which may carry a path prefix of its own. */
function route(gateway: string | URL, path: string): URL {
  const base = new URL(gateway);
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  return new URL(path, base);
}

async function answerOf(response: Response): Promise<Record<string, unknown>> {
  const body: unknown = await response.json().catch(() => null);
  if (response.ok && isJsonObject(body)) return body;
  const { code, message = 'no error message' } = envelopeError(body);
  throw new ChannelRouteError(response.status, code, `${response.url || 'channel route'} answered ${response.status}${code ? ` ${code}` : ''}: ${message}`);
}
