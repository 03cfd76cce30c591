import type {
  ContentBlock,
  Message,
  MessageDeltaUsage,
  RawContentBlockDeltaEvent,
  RawMessageDeltaEvent,
  RawMessageStartEvent,
  RawMessageStreamEvent,
  StopReason,
  Usage,
} from '@anthropic-ai/sdk/resources/messages';
import { anthropicRefusal, redactedData, thinkingSignature } from './anthropic-fake-checks';
import type { FinishReason } from './behaviour';
import { isRecord, textsOf, type Completion } from './completion';
import { startFake, type Fake, type FakeOptions } from './fake-server';
import type { ChatRequest, FakeRequest, Refusal, SseEvent, WireFormat } from './wire-format';

/** Anthropic Messages API: POST /v1/messages with `x-api-key` and `anthropic-version`. */
export function startAnthropicFake(options?: FakeOptions): Promise<Fake> {
  return startFake(anthropicWire, options);
}

/** The real API always reports usage; the fake can leave it out to test the gateway's fallback. */
type MaybeMetered<T extends { usage: unknown }> = Omit<T, 'usage'> & Partial<Pick<T, 'usage'>>;

type StreamEvent =
  Exclude<RawMessageStreamEvent, RawMessageStartEvent | RawMessageDeltaEvent> | { type: 'message_start'; message: MaybeMetered<Message> } | MaybeMetered<RawMessageDeltaEvent> | { type: 'ping' };

const STOP_REASONS: Record<FinishReason, StopReason> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
};

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'overloaded_error',
  529: 'overloaded_error',
};

const anthropicWire: WireFormat = {
  provider: 'anthropic',
  versionPath: '/v1',
  sseLineEnd: '\n',
  requestIdHeader: 'request-id',
  authFailureStatus: 401,
  credential: (request) => headerValue(request, 'x-api-key'),
  parse,
  errorBody: (status, message) => ({
    type: 'error',
    error: { type: ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error'), message },
  }),
  json: (completion) => message(completion, false),
  events,
};

function parse(request: FakeRequest): ChatRequest | Refusal {
  if (request.method !== 'POST' || request.path !== '/v1/messages') {
    return { status: 404, message: `Not found: ${request.method} ${request.path}` };
  }
  if (headerValue(request, 'anthropic-version') === undefined) {
    return { status: 400, message: 'anthropic-version: header is required' };
  }
  const { body } = request;
  if (!isRecord(body) || typeof body.model !== 'string' || !Array.isArray(body.messages)) {
    return { status: 400, message: 'model: Field required; messages: Field required' };
  }
  if (typeof body.max_tokens !== 'number') return { status: 400, message: 'max_tokens: Field required' };
  // The real API refuses a conversation of system text alone.
  if (body.messages.length === 0) return { status: 400, message: 'messages: at least one message is required' };
  const messages = body.messages.filter(isRecord);
  const refused = anthropicRefusal(body, messages);
  if (refused) return { status: 400, message: refused };
  return {
    model: body.model,
    stream: body.stream === true,
    usageWanted: true,
    thinkingWanted: isRecord(body.thinking) && body.thinking.type === 'enabled',
    promptTexts: [...textsOf(body.system), ...messages.flatMap((entry) => textsOf(entry.content))],
    lastUserText: textsOf(messages.filter((entry) => entry.role === 'user').at(-1)?.content).join(' '),
  };
}

function headerValue(request: FakeRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The whole message, or (`started`) the one message_start announces: no content or stop reason yet. */
function message(completion: Completion, started: boolean): MaybeMetered<Message> {
  const { usage: metered } = completion;
  return {
    id: `msg_${completion.id}`,
    type: 'message',
    role: 'assistant',
    model: completion.model,
    content: started ? [] : contentBlocks(completion),
    stop_reason: started ? null : stopReason(completion),
    stop_sequence: null,
    // Like the real API, message_start counts one output token already.
    ...(metered && { usage: usage(metered.promptTokens, started ? 1 : metered.completionTokens) }),
  };
}

function stopReason(completion: Completion): StopReason {
  return completion.pauseTurn ? 'pause_turn' : STOP_REASONS[completion.finishReason];
}

/** The thinking blocks a reply that thinks starts with: redacted first when asked, then the thinking, signed. */
function thinkingBlocks(completion: Completion): ContentBlock[] {
  const { thinking } = completion;
  if (!thinking) return [];
  const redacted: ContentBlock[] = completion.redactedThinking ? [{ type: 'redacted_thinking', data: redactedData(completion.id) }] : [];
  return [...redacted, { type: 'thinking', thinking: thinking.text, signature: thinkingSignature(thinking.text) }];
}

/** The thinking blocks, a text block when there is text (or nothing else), then one tool_use block per call. */
function contentBlocks(completion: Completion): ContentBlock[] {
  const text: ContentBlock[] = hasTextBlock(completion) ? [{ type: 'text', text: completion.text, citations: null }] : [];
  return [...thinkingBlocks(completion), ...text, ...completion.toolCalls.map((call): ContentBlock => ({ type: 'tool_use', id: `toolu_${call.id}`, name: call.name, input: call.arguments }))];
}

function hasTextBlock(completion: Completion): boolean {
  return completion.text !== '' || completion.toolCalls.length === 0;
}

function usage(inputTokens: number, outputTokens: number): Usage {
  return {
    input_tokens: inputTokens,
    output_tokens: outputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    cache_creation: null,
    server_tool_use: null,
    service_tier: 'standard',
  };
}

/**
 * message_start, then per block content_block_start, its deltas (a thinking block's words, then its
 * signature) and content_block_stop (with a ping
 * after the first start, as the real API sends it), message_delta, message_stop.
 */
function events(completion: Completion): SseEvent[] {
  const event = (body: StreamEvent): SseEvent => ({ event: body.type, data: JSON.stringify(body) });
  const block = (index: number, start: ContentBlock, deltas: RawContentBlockDeltaEvent['delta'][]): SseEvent[] => [
    event({ type: 'content_block_start', index, content_block: start }),
    ...deltas.map((delta) => event({ type: 'content_block_delta', index, delta })),
    event({ type: 'content_block_stop', index }),
  ];
  const thinking = thinkingBlocks(completion).map((start, index) =>
    start.type === 'thinking'
      ? block(index, { ...start, thinking: '', signature: '' }, [
          ...(completion.thinking?.pieces ?? []).map((text) => ({ type: 'thinking_delta' as const, thinking: text })),
          { type: 'signature_delta', signature: start.signature },
        ])
      : block(index, start, []),
  );
  const textBlocks = hasTextBlock(completion)
    ? [
        block(
          thinking.length,
          { type: 'text', text: '', citations: null },
          completion.textPieces.map((text) => ({ type: 'text_delta', text })),
        ),
      ]
    : [];
  const toolBlocks = completion.toolCalls.map((call, position) =>
    block(
      thinking.length + textBlocks.length + position,
      { type: 'tool_use', id: `toolu_${call.id}`, name: call.name, input: {} },
      argumentDeltas(call.argumentsJson, call.argumentFragments).map((partial_json) => ({ type: 'input_json_delta', partial_json })),
    ),
  );
  const [[firstStart, ...firstRest], ...otherBlocks] = [...thinking, ...textBlocks, ...toolBlocks];
  const { usage: metered } = completion;
  const messageDelta: StreamEvent = {
    type: 'message_delta',
    delta: { stop_reason: stopReason(completion), stop_sequence: null },
    ...(metered && { usage: deltaUsage(metered.promptTokens, metered.completionTokens) }),
  };
  return [
    event({ type: 'message_start', message: message(completion, true) }),
    firstStart,
    event({ type: 'ping' }),
    ...firstRest,
    ...otherBlocks.flat(),
    event(messageDelta),
    event({ type: 'message_stop' }),
  ];
}

/** Like the real API, a tool called without arguments streams one empty input_json_delta, never `{}`. */
function argumentDeltas(argumentsJson: string, fragments: string[]): string[] {
  return argumentsJson === '{}' ? [''] : fragments;
}

/** message_delta usage is cumulative for the whole message. */
function deltaUsage(inputTokens: number, outputTokens: number): MessageDeltaUsage {
  return { input_tokens: inputTokens, output_tokens: outputTokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, server_tool_use: null };
}
