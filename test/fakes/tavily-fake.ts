import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { playToolBehaviour, startToolFakeServer, type RecordedToolRequest, type ToolFake, type ToolFakeBehaviour } from './tool-fake-server';

export type { RecordedToolRequest };

/**
 * How the fake answers one accepted search: `normal` makes results derived from the query,
 * `max_results` of them (default 5); `missing-fields` makes results with a url and a score but
 * neither `title` nor `content`.
 */
export type TavilyBehaviour = ToolFakeBehaviour;

export interface TavilyFakeOptions {
  /** When set, only this key is accepted; otherwise any non-empty bearer key. */
  apiKey?: string;
  /** The behaviour once the script is used up; default `{ kind: 'normal' }`. */
  default?: TavilyBehaviour;
}

export type TavilyFake = ToolFake<TavilyBehaviour>;

const DEFAULT_RESULTS = 5;
const MAX_RESULTS = 20;
const SEARCH_DEPTHS = ['basic', 'advanced', 'fast', 'ultra-fast'];

/** The Tavily search API on 127.0.0.1: `POST /search`, bearer key, refusing what Tavily refuses. */
export function startTavilyFake(options: TavilyFakeOptions = {}): Promise<TavilyFake> {
  return startToolFakeServer<TavilyBehaviour>({
    name: 'tavily',
    default: options.default ?? { kind: 'normal' },
    parseBody,
    refuse: (request) => refusalOf(request, options.apiKey),
    answer: (behaviour, request, response) => answer(behaviour, request.body as SearchBody, response),
  });
}

interface SearchBody {
  query: string;
  max_results?: number;
}

/** The parsed JSON body; the raw text when it was not JSON, which the refusal below names. */
function parseBody(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/** Route, then method, then key, then body: the order in which Tavily's API answers them. */
function refusalOf(request: RecordedToolRequest, apiKey: string | undefined): { status: number; body: unknown } | undefined {
  if (request.path !== '/search') return { status: 404, body: { detail: 'Not Found' } };
  if (request.method !== 'POST') return { status: 405, body: { detail: 'Method Not Allowed' } };
  const key = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (!key || (apiKey !== undefined && key !== apiKey)) return { status: 401, body: errorBody('Unauthorized: missing or invalid API key.') };
  const { body } = request;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { status: 400, body: errorBody('Invalid request body.') };
  const { query, max_results: maxResults, search_depth: depth } = body as Record<string, unknown>;
  if (typeof query !== 'string' || query.trim() === '') return { status: 400, body: errorBody('Query is missing.') };
  if (maxResults !== undefined && !(Number.isInteger(maxResults) && (maxResults as number) >= 0 && (maxResults as number) <= MAX_RESULTS)) {
    return { status: 400, body: errorBody(`max_results must be an integer between 0 and ${MAX_RESULTS}.`) };
  }
  if (depth !== undefined && !SEARCH_DEPTHS.includes(depth as string)) return { status: 400, body: errorBody(`Invalid search_depth. Must be one of ${SEARCH_DEPTHS.join(', ')}.`) };
  return undefined;
}

function errorBody(error: string): unknown {
  return { detail: { error } };
}

function answer(behaviour: TavilyBehaviour, body: SearchBody, response: ServerResponse): Promise<void> {
  return playToolBehaviour(behaviour, response, {
    normal: () => searchAnswer(body),
    missingFields: () => {
      const answered = searchAnswer(body);
      return { ...answered, results: answered.results.map(({ url, score }) => ({ url, score })) };
    },
    error: (status) => errorBody(`fake tavily error ${status}`),
  });
}

export interface TavilyResult {
  title: string;
  url: string;
  content: string;
  score: number;
  raw_content: null;
}

/** The results the fake gives `query`: the same every time, so that tests can expect them. */
export function tavilyFakeResults(query: string, count = DEFAULT_RESULTS): TavilyResult[] {
  const slug = encodeURIComponent(query.trim().toLowerCase().replace(/\s+/g, '-'));
  return Array.from({ length: count }, (_, index) => ({
    title: `Result ${index + 1} for ${query}`,
    url: `https://example.com/${slug}/${index + 1}`,
    content: `Fake snippet ${index + 1} about ${query}.`,
    score: Math.round((0.99 - index * 0.04) * 100) / 100,
    raw_content: null,
  }));
}

function searchAnswer(body: SearchBody): { results: TavilyResult[] } & Record<string, unknown> {
  return {
    query: body.query,
    follow_up_questions: null,
    answer: null,
    images: [],
    results: tavilyFakeResults(body.query, body.max_results),
    response_time: 0.01,
    request_id: randomUUID(),
  };
}
