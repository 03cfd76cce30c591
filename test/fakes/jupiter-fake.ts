import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import bs58 from 'bs58';
import { playToolBehaviour, startToolFakeServer, type RecordedToolRequest, type ToolFake, type ToolFakeBehaviour } from './tool-fake-server';

/**
 * How the fake answers one accepted price request: `normal` prices every requested mint but the
 * unknown ones, derived from the mint; `missing-fields` sends entries without `usdPrice`.
 */
export type JupiterBehaviour = ToolFakeBehaviour;

export interface JupiterFakeOptions {
  /** Mints left out of every answer, as Jupiter leaves out the mints it cannot price. */
  unknown?: readonly string[];
  /** The behaviour once the script is used up; default `{ kind: 'normal' }`. */
  default?: JupiterBehaviour;
}

/** Its body is the raw text ('' for a GET). */
export type RecordedPriceRequest = RecordedToolRequest;

export type JupiterFake = ToolFake<JupiterBehaviour>;

/** Jupiter prices at most this many mints per request. */
const MAX_IDS = 50;

/** The Jupiter Price API v3 on 127.0.0.1: `GET /price/v3?ids=`, refusing what Jupiter refuses. */
export function startJupiterFake(options: JupiterFakeOptions = {}): Promise<JupiterFake> {
  const unknown = new Set(options.unknown ?? []);
  return startToolFakeServer<JupiterBehaviour>({
    name: 'jupiter',
    default: options.default ?? { kind: 'normal' },
    parseBody: (raw) => raw,
    refuse: (request) => {
      const refusal = refusalOf(request, idsOf(request));
      return refusal && { status: refusal.status, body: errorBody(refusal.message) };
    },
    answer: (behaviour, request, response) =>
      answer(
        behaviour,
        idsOf(request).filter((id) => !unknown.has(id)),
        response,
      ),
  });
}

function idsOf(request: RecordedPriceRequest): string[] {
  return request.query.ids?.split(',') ?? [];
}

function refusalOf(request: RecordedPriceRequest, ids: readonly string[]): { status: number; message: string } | undefined {
  if (request.path !== '/price/v3') return { status: 404, message: 'Not Found' };
  if (request.method !== 'GET') return { status: 405, message: 'Method Not Allowed' };
  if (ids.length === 0 || request.query.ids === '') return { status: 400, message: 'Query parameter ids is required' };
  if (ids.length > MAX_IDS) return { status: 400, message: `At most ${MAX_IDS} ids per request` };
  const invalid = ids.find((id) => !isMint(id));
  if (invalid !== undefined) return { status: 400, message: `Invalid id: ${invalid}` };
  return undefined;
}

/** A mint is a public key: 32 bytes in base58. */
function isMint(id: string): boolean {
  try {
    return bs58.decode(id).length === 32;
  } catch {
    return false;
  }
}

function errorBody(error: string): unknown {
  return { error };
}

function answer(behaviour: JupiterBehaviour, ids: readonly string[], response: ServerResponse): Promise<void> {
  return playToolBehaviour(behaviour, response, {
    normal: () => priceAnswer(ids),
    missingFields: () => Object.fromEntries(Object.entries(priceAnswer(ids)).map(([id, entry]) => [id, { ...entry, usdPrice: undefined }])),
    error: (status) => errorBody(`fake jupiter error ${status}`),
  });
}

export interface JupiterPriceEntry {
  createdAt: string;
  liquidity: number;
  usdPrice: number;
  blockId: number;
  decimals: number;
  priceChange24h: number;
}

/** The entry the fake gives `mint`: the same every time, so that tests can expect it. */
export function jupiterFakePrice(mint: string): JupiterPriceEntry {
  const hash = createHash('sha256').update(mint).digest();
  return {
    createdAt: '2024-06-05T08:55:25.527Z',
    liquidity: hash.readUInt32BE(0) / 100,
    usdPrice: (hash.readUInt32BE(4) % 1_000_000) / 1000 + 0.001,
    blockId: 348_000_000 + (hash.readUInt32BE(8) % 100_000),
    decimals: hash[12] % 10,
    priceChange24h: ((hash.readUInt16BE(13) % 2001) - 1000) / 100,
  };
}

function priceAnswer(ids: readonly string[]): Record<string, JupiterPriceEntry> {
  return Object.fromEntries(ids.map((id) => [id, jupiterFakePrice(id)]));
}
