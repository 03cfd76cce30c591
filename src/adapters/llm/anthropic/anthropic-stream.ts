import type { MessageDeltaUsage, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { EventSourceMessage } from 'eventsource-parser';
import type { ChatCompletionChunk } from '../../../modules/providers/domain/chat-completion';
import { UpstreamError } from '../../../modules/providers/domain/upstream-error';
import { parseEventJson } from '../shared/event-json';
import { isJsonObject } from '../shared/json-object';
import { ChunkFactory } from '../shared/openai-shapes';
import { withToolArguments } from '../shared/tool-call-arguments';
import { finishReason, openAiUsage, type AnthropicUsage } from './anthropic-response';

type StreamEvent = RawMessageStreamEvent | { type: 'ping' } | { type: 'error'; error: { type: string; message?: string } };

/** The object each event type must carry, checked before it is read. */
const NESTED: Partial<Record<string, string>> = {
  message_start: 'message',
  content_block_start: 'content_block',
  content_block_delta: 'delta',
  message_delta: 'delta',
  error: 'error',
};

/** Error types that say "not now", like the statuses UpstreamHttp treats as unavailable: another candidate may answer. */
const TRANSIENT_ERRORS = new Set(['overloaded_error', 'api_error', 'rate_limit_error']);

/**
 * Messages API stream events as OpenAI chunks, until message_stop; a stream that ends before it
 * was cut. ping, content_block_stop and event types newer than this code carry nothing to pass on.
 * A tool without parameters streams no input_json_delta (or an empty one): its call gets `{}`.
 * The forced JSON tool's input (`jsonTool`, see anthropic-parameters.ts) streams as content.
 * `passthrough` (a request from the Messages surface): every event but ping also rides on a chunk
 * as Anthropic sent it, on the one it translates to or on one without choices.
 */
export function anthropicChunks(events: AsyncIterable<EventSourceMessage>, jsonTool?: string, passthrough = false): AsyncGenerator<ChatCompletionChunk> {
  return withToolArguments(translated(events, jsonTool, passthrough));
}

async function* translated(events: AsyncIterable<EventSourceMessage>, jsonTool: string | undefined, passthrough: boolean): AsyncGenerator<ChatCompletionChunk> {
  const translation = new StreamTranslation(jsonTool);
  for await (const event of events) {
    const data = parseEventJson('anthropic', event.data);
    if (!isStreamEvent(data)) throw new UpstreamError('anthropic', 'bad_response', 'anthropic sent a malformed stream event');
    const chunks = translation.chunks(data);
    if (passthrough && data.type !== 'ping') {
      const [carrier = translation.empty()] = chunks;
      yield { ...carrier, anthropic: data as RawMessageStreamEvent };
      yield* chunks.slice(1);
    } else yield* chunks;
    if (translation.stopped) return;
  }
  throw new UpstreamError('anthropic', 'unavailable', 'anthropic stream ended without message_stop');
}

function isStreamEvent(data: unknown): data is StreamEvent {
  if (!isJsonObject(data) || typeof data.type !== 'string') return false;
  const nested = NESTED[data.type];
  return nested === undefined || isJsonObject(data[nested]);
}

class StreamTranslation {
  stopped = false;
  private factory?: ChunkFactory;
  /** Content block index to tool call index: OpenAI counts tool calls from 0, Anthropic counts every block. */
  private readonly toolCallIndexes = new Map<number, number>();
  private usage?: AnthropicUsage;
  /** The content block of the forced JSON tool's call, and whether any of its input has streamed. */
  private jsonBlock?: { index: number; streamed: boolean };

  constructor(private readonly jsonTool: string | undefined) {}

  chunks(event: StreamEvent): ChatCompletionChunk[] {
    switch (event.type) {
      case 'message_start':
        this.factory = new ChunkFactory(event.message.id, event.message.model);
        this.usage = event.message.usage as AnthropicUsage | undefined;
        return [this.factory.role()];
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'text' && block.text !== '') return [this.started().content(block.text)];
        if (block.type !== 'tool_use') return [];
        if (block.name === this.jsonTool) {
          this.jsonBlock = { index: event.index, streamed: false };
          return [];
        }
        const index = this.toolCallIndexes.size;
        this.toolCallIndexes.set(event.index, index);
        return [this.started().toolCall({ index, id: block.id, type: 'function', function: { name: block.name, arguments: '' } })];
      }
      case 'content_block_delta': {
        const { delta } = event;
        if (delta.type === 'text_delta' && delta.text !== '') return [this.started().content(delta.text)];
        if (delta.type === 'input_json_delta' && delta.partial_json !== '' && event.index === this.jsonBlock?.index) {
          this.jsonBlock.streamed = true;
          return [this.started().content(delta.partial_json)];
        }
        const index = this.toolCallIndexes.get(event.index);
        if (delta.type === 'input_json_delta' && delta.partial_json !== '' && index !== undefined) {
          return [this.started().toolCall({ index, function: { arguments: delta.partial_json } })];
        }
        return [];
      }
      case 'content_block_stop':
        // A JSON answer with no input at all is the empty object, as the whole-message path gives it.
        if (event.index !== this.jsonBlock?.index || this.jsonBlock.streamed) return [];
        this.jsonBlock.streamed = true;
        return [this.started().content('{}')];
      case 'message_delta':
        if (event.usage) this.usage = cumulativeUsage(this.usage, event.usage);
        return [this.started().finish(finishReason(event.delta.stop_reason, this.jsonBlock !== undefined))];
      case 'message_stop':
        this.stopped = true;
        return this.usage ? [this.started().usage(openAiUsage(this.usage))] : [];
      case 'error': {
        const kind = TRANSIENT_ERRORS.has(event.error.type) ? 'unavailable' : 'bad_response';
        throw new UpstreamError('anthropic', kind, `anthropic stream failed: ${event.error.type}`);
      }
      // Event types newer than this code translate to nothing; a passthrough client still gets them as sent, and Anthropic's SDK reads past those it does not know.
      default:
        return [];
    }
  }

  /** A chunk without choices, once the message started. */
  empty(): ChatCompletionChunk {
    return this.started().empty();
  }

  private started(): ChunkFactory {
    if (!this.factory) throw new UpstreamError('anthropic', 'bad_response', 'anthropic sent a stream event before message_start');
    return this.factory;
  }
}

/** message_delta counts are totals for the whole message; the fields it leaves null keep message_start's. */
function cumulativeUsage(started: AnthropicUsage | undefined, delta: MessageDeltaUsage): AnthropicUsage {
  return {
    input_tokens: delta.input_tokens ?? started?.input_tokens ?? null,
    cache_creation_input_tokens: delta.cache_creation_input_tokens ?? started?.cache_creation_input_tokens,
    cache_read_input_tokens: delta.cache_read_input_tokens ?? started?.cache_read_input_tokens,
    output_tokens: delta.output_tokens,
  };
}
