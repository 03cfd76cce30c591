/** Why a reply ends, in provider-neutral words; each fake spells it the way its provider does. */
export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** What a reply says and how fast it says it. */
export interface ReplyShape {
  /** Default: `fake <provider> reply to: <last user text, first 40 characters>`, or '' when `toolCalls` are given. */
  text?: string;
  toolCalls?: FakeToolCall[];
  /** Default true; false leaves token usage out of the reply (and out of the stream). */
  usage?: boolean;
  /** Default 'tool_calls' when `toolCalls` are given, else 'stop'. */
  finishReason?: FinishReason;
  /** Silence before the status line: a slow first token that the client sees as slow headers. */
  firstByteDelayMs?: number;
  /** Silence before each stream event, the first included (the headers go out at once). */
  chunkDelayMs?: number;
  /** OpenAI's wire only: a JSON reply without `message.refusal` and `logprobs`, as some OpenAI-compatible servers send. */
  bare?: boolean;
  /** Anthropic's wire only, when the request enables thinking: the thinking text (default `fake thinking about: <last user text>`). */
  thinking?: string;
  /** Anthropic's wire only, when the request enables thinking: a redacted_thinking block before the thinking. */
  redactedThinking?: boolean;
  /** Anthropic's wire only: the turn stops with `pause_turn` (a server tool's long turn paused). */
  pauseTurn?: boolean;
}

/**
 * How the fake answers one request. Whether a reply streams follows the request. The stream faults
 * (`cut-stream`, `malformed-chunk`, `missing-done`) on a non-streaming request: `cut-stream` sends
 * half the JSON body and then closes the connection, `malformed-chunk` sends half the JSON body
 * completely (as `malformed-json`), `missing-done` is a normal reply.
 */
export type Behaviour =
  | ({ kind: 'reply' } & ReplyShape)
  /** The provider's own error body with this status; `retryAfter` becomes the Retry-After header. */
  | { kind: 'status'; status: number; retryAfter?: string; message?: string }
  /** A TCP reset instead of any response. */
  | { kind: 'reset' }
  /** The first `afterChunks` stream events, then the connection closes without ending the response. */
  | ({ kind: 'cut-stream'; afterChunks: number } & ReplyShape)
  /** The middle stream event's data is cut in half, so it is not JSON; the stream then goes on. */
  | ({ kind: 'malformed-chunk' } & ReplyShape)
  /** The stream ends cleanly without its terminator: OpenAI `[DONE]`, Anthropic `message_stop`, Gemini the final chunk with `finishReason`. */
  | ({ kind: 'missing-done' } & ReplyShape)
  /** Status 200, `application/json`, and the first half of the JSON reply. */
  | ({ kind: 'malformed-json' } & ReplyShape)
  /** Reads the request and never answers, until the client gives up. */
  | { kind: 'hang' };
