import type { ContentBlock, Message, MessageDeltaUsage, RawContentBlockDeltaEvent, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';

/*
 * An Anthropic model's own answer, kept beside its neutral translation for the Messages surface
 * (docs/decisions.md, "Anthropic passthrough"): rebuilt from its stream events for the cache, the
 * usage log and redelivery, and given again as events for a cached or redelivered stream.
 */

type Delta = RawContentBlockDeltaEvent['delta'];

/** Whether an event carries something the payer gets: a block with content, or a delta that adds to one (thinking included: Anthropic bills it as output, and the client sees it). */
export function carriesNativeContent(event: RawMessageStreamEvent): boolean {
  if (event.type === 'content_block_start') {
    const block = event.content_block;
    if (block.type === 'text') return block.text !== '';
    return block.type !== 'thinking' || block.thinking !== '';
  }
  return event.type === 'content_block_delta' && addsContent(event.delta);
}

/** Whether a delta adds anything: a citation always does, the others unless empty. */
function addsContent(delta: Delta): boolean {
  switch (delta.type) {
    case 'text_delta':
      return delta.text !== '';
    case 'thinking_delta':
      return delta.thinking !== '';
    case 'input_json_delta':
      return delta.partial_json !== '';
    case 'signature_delta':
      return delta.signature !== '';
    default:
      return true;
  }
}

/**
 * Rebuilds the message from its events, as Anthropic's SDK does on the client: blocks by index,
 * text, thinking and partial input JSON appended, the signature set, the stop reason and the
 * cumulative usage of message_delta. Written here because the SDK keeps its own accumulation
 * private to its client-side stream class.
 */
export class NativeMessageAssembler {
  private started: Message | null = null;
  private readonly inputs = new Map<number, string>();
  private content = false;

  add(event: RawMessageStreamEvent): void {
    if (event.type === 'message_start') this.started = { ...event.message, content: [...event.message.content] };
    const message = this.started;
    if (!message) return;
    this.content ||= carriesNativeContent(event);
    switch (event.type) {
      case 'content_block_start':
        message.content[event.index] = { ...event.content_block } as ContentBlock;
        if (event.content_block.type === 'tool_use' || event.content_block.type === 'server_tool_use') this.inputs.set(event.index, '');
        return;
      case 'content_block_delta':
        this.applyDelta(message.content[event.index], event.index, event.delta);
        return;
      case 'content_block_stop':
        this.closeInput(message.content[event.index], event.index);
        return;
      case 'message_delta':
        message.stop_reason = event.delta.stop_reason;
        message.stop_sequence = event.delta.stop_sequence;
        message.usage = cumulativeUsage(message.usage, event.usage);
        return;
      default:
    }
  }

  /** Whether any block with content has arrived. */
  get hasContent(): boolean {
    return this.content;
  }

  /** The message so far, blocks still open included; null before message_start. */
  message(): Message | null {
    if (!this.started) return null;
    const content = this.started.content.map((block, index) => (this.inputs.has(index) ? { ...block, input: parsedInput(this.inputs.get(index) ?? '') } : block)) as ContentBlock[];
    return { ...this.started, content };
  }

  private applyDelta(block: ContentBlock | undefined, index: number, delta: Delta): void {
    if (!block) return;
    const open = block as unknown as Record<string, unknown>;
    if (delta.type === 'text_delta' && block.type === 'text') block.text += delta.text;
    else if (delta.type === 'thinking_delta' && block.type === 'thinking') block.thinking += delta.thinking;
    else if (delta.type === 'signature_delta' && block.type === 'thinking') block.signature = delta.signature;
    else if (delta.type === 'input_json_delta' && this.inputs.has(index)) this.inputs.set(index, (this.inputs.get(index) ?? '') + delta.partial_json);
    else if (delta.type === 'citations_delta') open.citations = [...((open.citations as unknown[] | null) ?? []), delta.citation];
  }

  private closeInput(block: ContentBlock | undefined, index: number): void {
    const json = this.inputs.get(index);
    if (!block || json === undefined) return;
    this.inputs.delete(index);
    (block as { input: unknown }).input = parsedInput(json);
  }
}

/** A tool's streamed input as the object it spells; none, or JSON cut short, is `{}`. */
function parsedInput(json: string): unknown {
  if (json === '') return {};
  try {
    return JSON.parse(json);
  } catch {
    return {};
  }
}

/** message_delta counts are totals for the whole message; the fields it leaves null keep message_start's. */
function cumulativeUsage(started: Message['usage'], delta: MessageDeltaUsage): Message['usage'] {
  const usage = { ...started, output_tokens: delta.output_tokens };
  if (delta.input_tokens != null) usage.input_tokens = delta.input_tokens;
  if (delta.cache_creation_input_tokens != null) usage.cache_creation_input_tokens = delta.cache_creation_input_tokens;
  if (delta.cache_read_input_tokens != null) usage.cache_read_input_tokens = delta.cache_read_input_tokens;
  if (delta.server_tool_use != null) usage.server_tool_use = delta.server_tool_use;
  return usage;
}

/**
 * A kept message as the events a stream would have carried (a cache hit or a redelivery asked as
 * a stream): message_start, each block opened empty, its whole content in one delta, closed; then,
 * if it `finished`, message_delta with the stop reason and usage, and message_stop.
 */
export function nativeEvents(message: Message, finished: boolean): RawMessageStreamEvent[] {
  const events: RawMessageStreamEvent[] = [{ type: 'message_start', message: { ...message, content: [], stop_reason: null, stop_sequence: null } }];
  message.content.forEach((block, index) => {
    const { start, deltas } = openedBlock(block);
    events.push({ type: 'content_block_start', index, content_block: start });
    for (const delta of deltas) events.push({ type: 'content_block_delta', index, delta });
    events.push({ type: 'content_block_stop', index });
  });
  if (!finished) return events;
  const { usage } = message;
  events.push({
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason, stop_sequence: message.stop_sequence },
    usage: {
      input_tokens: usage.input_tokens,
      output_tokens: usage.output_tokens,
      cache_creation_input_tokens: usage.cache_creation_input_tokens ?? null,
      cache_read_input_tokens: usage.cache_read_input_tokens ?? null,
      server_tool_use: usage.server_tool_use ?? null,
    },
  });
  events.push({ type: 'message_stop' });
  return events;
}

function openedBlock(block: ContentBlock): { start: ContentBlock; deltas: Delta[] } {
  switch (block.type) {
    case 'text':
      return { start: { ...block, text: '' }, deltas: block.text === '' ? [] : [{ type: 'text_delta', text: block.text }] };
    case 'thinking':
      return {
        start: { ...block, thinking: '', signature: '' },
        deltas: [
          { type: 'thinking_delta', thinking: block.thinking },
          { type: 'signature_delta', signature: block.signature },
        ],
      };
    case 'tool_use':
    case 'server_tool_use':
      return { start: { ...block, input: {} }, deltas: [{ type: 'input_json_delta', partial_json: JSON.stringify(block.input) }] };
    default:
      return { start: block, deltas: [] };
  }
}
