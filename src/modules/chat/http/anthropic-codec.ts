import type { Message, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { ChatCompletion, ChatCompletionChunk } from '../../providers/domain/chat-completion';
import type { WireCodec } from './completion-endpoint';
import type { EventFraming } from './sse-writer';

/*
 * The Anthropic Messages wire format's output, on the controller's side of the completion pipeline
 * (docs/decisions.md, "One pipeline, wire codecs at the edge" and "The Anthropic Messages codec"):
 * the neutral answer as Anthropic's message, and its chunks as Anthropic's stream events; an
 * Anthropic model's own message and events, where the answer carries them, pass unchanged but for
 * the model's name (docs/decisions.md, "Anthropic passthrough"). Its input half is
 * anthropic-request.ts.
 */

export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';

export type AnthropicBlock = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AnthropicBlock[];
  stop_reason: StopReason | null;
  stop_sequence: string | null;
  usage: { input_tokens: number; output_tokens: number };
}

export type AnthropicEvent =
  | { type: 'message_start'; message: AnthropicMessage }
  | { type: 'content_block_start'; index: number; content_block: AnthropicBlock }
  | { type: 'content_block_delta'; index: number; delta: { type: 'text_delta'; text: string } | { type: 'input_json_delta'; partial_json: string } }
  | { type: 'content_block_stop'; index: number }
  | { type: 'message_delta'; delta: { stop_reason: StopReason | null; stop_sequence: string | null }; usage: { input_tokens?: number; output_tokens: number } }
  | { type: 'message_stop' };

/** Anthropic's SSE framing: each event named on an `event:` line, and `ping` as the keep-alive. */
export const ANTHROPIC_FRAMING: EventFraming = {
  frame: (event) => `event: ${(event as AnthropicEvent).type}\ndata: ${JSON.stringify(event)}\n\n`,
  keepAlive: 'event: ping\ndata: {"type": "ping"}\n\n',
};

/** The neutral finish reason as Anthropic's stop reason; a stop sequence reads as `stop` there, so it is `end_turn` here (docs/decisions.md, "The Anthropic Messages codec"). */
export function stopReason(finishReason: string | null | undefined): StopReason | null {
  switch (finishReason) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    case null:
    case undefined:
      return null;
    default:
      return 'end_turn';
  }
}

/** A message id as Anthropic spells them. */
function messageId(id: string): string {
  return id.startsWith('msg_') ? id : `msg_${id.replace(/^chatcmpl-/, '')}`;
}

/** A tool call's arguments as the tool_use block's input: an object, `{}` when the model wrote none or no JSON object. */
function toolInput(argumentsJson: string): unknown {
  try {
    const input: unknown = JSON.parse(argumentsJson || '{}');
    return typeof input === 'object' && input !== null && !Array.isArray(input) ? input : {};
  } catch {
    return {};
  }
}

/** A whole answer as Anthropic's message: an Anthropic model's own, or the neutral answer translated. */
export function anthropicMessage(completion: ChatCompletion): AnthropicMessage | Message {
  if (completion.anthropic) return { ...completion.anthropic, model: completion.model };
  return translatedMessage(completion);
}

function translatedMessage(completion: ChatCompletion): AnthropicMessage {
  const choice = completion.choices[0];
  const content: AnthropicBlock[] = [];
  const text = choice?.message.content ?? '';
  if (text) content.push({ type: 'text', text });
  for (const call of choice?.message.tool_calls ?? []) {
    if (call.type === 'function') content.push({ type: 'tool_use', id: call.id, name: call.function.name, input: toolInput(call.function.arguments) });
  }
  return {
    id: messageId(completion.id),
    type: 'message',
    role: 'assistant',
    model: completion.model,
    content,
    stop_reason: stopReason(choice?.finish_reason),
    stop_sequence: null,
    usage: { input_tokens: completion.usage?.prompt_tokens ?? 0, output_tokens: completion.usage?.completion_tokens ?? 0 },
  };
}

/**
 * The chunks as Anthropic's events: an Anthropic model's own events when the first chunk carries
 * one, else the neutral chunks translated.
 */
export async function* anthropicEvents(chunks: AsyncIterable<ChatCompletionChunk>): AsyncGenerator<AnthropicEvent | RawMessageStreamEvent> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return yield* translatedEvents([]);
  const rest = { [Symbol.asyncIterator]: () => iterator };
  yield* first.value.anthropic ? nativeEvents(first.value, rest) : translatedEvents(prepended(first.value, rest));
}

async function* prepended<T>(head: T, rest: AsyncIterable<T>): AsyncGenerator<T> {
  yield head;
  yield* rest;
}

/** An Anthropic model's events as it sent them, message_start naming the model as the gateway does; chunks without one (neutral fillers) carry nothing more. */
async function* nativeEvents(first: ChatCompletionChunk, rest: AsyncIterable<ChatCompletionChunk>): AsyncGenerator<RawMessageStreamEvent> {
  for await (const chunk of prepended(first, rest)) {
    const event = chunk.anthropic;
    if (!event) continue;
    yield event.type === 'message_start' ? { ...event, message: { ...event.message, model: chunk.model } } : event;
  }
}

/**
 * The neutral chunks as Anthropic's events: `message_start` with the first chunk, a text block for
 * each run of text and a tool_use block for each tool call (its arguments as `input_json_delta`),
 * and, once the chunks end, the stop reason and usage in `message_delta`, then `message_stop`.
 */
async function* translatedEvents(chunks: AsyncIterable<ChatCompletionChunk> | Iterable<ChatCompletionChunk>): AsyncGenerator<AnthropicEvent> {
  let started = false;
  let index = -1;
  let open: { kind: 'text' } | { kind: 'tool'; call: number } | null = null;
  let finish: string | null = null;
  let usage: { input_tokens?: number; output_tokens: number } = { output_tokens: 0 };
  const close = function* (): Generator<AnthropicEvent> {
    if (open) yield { type: 'content_block_stop', index };
    open = null;
  };
  for await (const chunk of chunks) {
    if (!started) {
      started = true;
      yield { type: 'message_start', message: { ...translatedMessage({ id: chunk.id, created: chunk.created, model: chunk.model, object: 'chat.completion', choices: [] }), stop_reason: null } };
    }
    if (chunk.usage) usage = { input_tokens: chunk.usage.prompt_tokens, output_tokens: chunk.usage.completion_tokens };
    const choice = chunk.choices[0];
    if (!choice) continue;
    const text = choice.delta.content;
    if (text) {
      if (open?.kind !== 'text') {
        yield* close();
        open = { kind: 'text' };
        yield { type: 'content_block_start', index: ++index, content_block: { type: 'text', text: '' } };
      }
      yield { type: 'content_block_delta', index, delta: { type: 'text_delta', text } };
    }
    for (const call of choice.delta.tool_calls ?? []) {
      if (open?.kind !== 'tool' || open.call !== call.index) {
        yield* close();
        open = { kind: 'tool', call: call.index };
        yield { type: 'content_block_start', index: ++index, content_block: { type: 'tool_use', id: call.id ?? `toolu_${index}`, name: call.function?.name ?? '', input: {} } };
      }
      const partial = call.function?.arguments;
      if (partial) yield { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: partial } };
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  yield* close();
  yield { type: 'message_delta', delta: { stop_reason: stopReason(finish ?? 'stop'), stop_sequence: null }, usage };
  yield { type: 'message_stop' };
}

/** Anthropic's format for the completion endpoint: named events, and no terminator after `message_stop`. */
export const ANTHROPIC_CODEC: WireCodec = { answer: anthropicMessage, events: anthropicEvents, framing: ANTHROPIC_FRAMING, terminator: null };
