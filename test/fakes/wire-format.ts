import type { IncomingHttpHeaders } from 'node:http';
import type { Completion } from './completion';

/** A request as the fake received it, body already parsed as JSON. */
export interface FakeRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
}

/** What a fake needs to know about a chat request to answer it. */
export interface ChatRequest {
  model: string;
  stream: boolean;
  /** False when the provider leaves usage out unless asked (OpenAI streams without `include_usage`). */
  usageWanted: boolean;
  /** Every text the request carries (system included), for deterministic prompt token counts. */
  promptTexts: string[];
  lastUserText: string;
  /** OpenAI's `logprobs: true`: each content piece comes with its log probability. */
  logprobsWanted?: boolean;
  /** Anthropic's `thinking: {type: "enabled"}`: the reply thinks first. */
  thinkingWanted?: boolean;
}

/** How the real provider would refuse a request. */
export interface Refusal {
  status: number;
  message: string;
  /** The provider's machine-readable error code, where it gives one. */
  code?: string;
}

export interface SseEvent {
  event?: string;
  data: string;
}

/** One provider's wire format: the only thing the three fakes do not share. */
export interface WireFormat {
  /** Named in default reply texts and error messages. */
  provider: string;
  /** Path prefix the gateway's base URL ends with: '/v1' or '/v1beta'. */
  versionPath: string;
  /** Line ending inside stream events (Gemini sends CRLF). */
  sseLineEnd: string;
  /** The header every response carries the provider's request id in; Gemini documents none. */
  requestIdHeader?: string;
  /** The API key the request carries, wherever this provider expects it. */
  credential(request: FakeRequest): string | undefined;
  /** Status the provider answers a missing or wrong API key with. */
  authFailureStatus: number;
  /** Route and validate a request whose credential was accepted. */
  parse(request: FakeRequest): ChatRequest | Refusal;
  errorBody(status: number, message: string, code?: string): unknown;
  json(completion: Completion): unknown;
  /** Stream events in order; the last one is the stream's terminator. */
  events(completion: Completion): SseEvent[];
}
