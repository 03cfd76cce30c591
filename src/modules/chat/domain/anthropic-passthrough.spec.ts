import type { Message, RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { ChatCompletion } from '../../providers/domain/chat-completion';
import { carriesNativeContent, NativeMessageAssembler, nativeEvents } from './anthropic-passthrough';
import { carriesContent, CompletionAssembler, completionChunks } from './completion-stream';

const USAGE = { input_tokens: 12, output_tokens: 1, cache_creation_input_tokens: 3, cache_read_input_tokens: 0, cache_creation: null, server_tool_use: null, service_tier: 'standard' as const };

const MESSAGE: Message = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-test',
  content: [
    { type: 'redacted_thinking', data: 'opaque' },
    { type: 'thinking', thinking: 'Let me see.', signature: 'sig-1' },
    { type: 'text', text: 'Calling.', citations: null },
    { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris', days: [1, 2] } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { ...USAGE, output_tokens: 40 },
};

/** The events Anthropic would send for MESSAGE: pieces split small, usage cumulative in message_delta. */
const STREAM: RawMessageStreamEvent[] = [
  { type: 'message_start', message: { ...MESSAGE, content: [], stop_reason: null, usage: USAGE } },
  { type: 'content_block_start', index: 0, content_block: { type: 'redacted_thinking', data: 'opaque' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: { type: 'thinking', thinking: '', signature: '' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'thinking_delta', thinking: 'Let me ' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'thinking_delta', thinking: 'see.' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'signature_delta', signature: 'sig-1' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'content_block_start', index: 2, content_block: { type: 'text', text: '', citations: null } },
  { type: 'content_block_delta', index: 2, delta: { type: 'text_delta', text: 'Calling.' } },
  { type: 'content_block_stop', index: 2 },
  { type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 'toolu_1', name: 'weather', input: {} } },
  { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{"city":"Pa' } },
  { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: 'ris","days":[1,2]}' } },
  { type: 'content_block_stop', index: 3 },
  {
    type: 'message_delta',
    delta: { stop_reason: 'tool_use', stop_sequence: null },
    usage: { input_tokens: null, output_tokens: 40, cache_creation_input_tokens: null, cache_read_input_tokens: null, server_tool_use: null },
  },
  { type: 'message_stop' },
];

function assembled(events: RawMessageStreamEvent[]): Message | null {
  const assembler = new NativeMessageAssembler();
  for (const event of events) assembler.add(event);
  return assembler.message();
}

describe('Anthropic passthrough, kept and given again', () => {
  it('rebuilds the message from its events as the SDK does: blocks by index, thinking and its signature, the tool input parsed, the stop reason and the cumulative usage', () => {
    expect(assembled(STREAM)).toEqual(MESSAGE);
  });

  it('gives a kept message again as events that rebuild it exactly', () => {
    const again = nativeEvents(MESSAGE, true);
    expect(assembled(again)).toEqual(MESSAGE);
    expect(again.at(-1)).toEqual({ type: 'message_stop' });
  });

  it('gives a cut message without its end: no message_delta, no message_stop', () => {
    const cut = assembled(STREAM.slice(0, 6));
    expect(cut?.content[1]).toEqual({ type: 'thinking', thinking: 'Let me see.', signature: '' });
    const again = nativeEvents(cut as Message, false).map((event) => event.type);
    expect(again).not.toContain('message_delta');
    expect(again).not.toContain('message_stop');
  });

  it('counts a block with content, thinking and redacted thinking included, as content; empty starts, stops and message events are not', () => {
    // The redacted block, three thinking deltas, the text delta, the tool_use block and its two input deltas.
    expect(STREAM.filter(carriesNativeContent).length).toBe(8);
    expect(carriesNativeContent(STREAM[0])).toBe(false);
    expect(carriesNativeContent(STREAM[3])).toBe(false);
    expect(carriesNativeContent(STREAM[4])).toBe(true);
    expect(carriesNativeContent(STREAM[1])).toBe(true);
  });

  it('leaves the events it was given untouched (they are on their way to the client as well)', () => {
    const copy = structuredClone(STREAM);
    assembled(STREAM);
    expect(STREAM).toEqual(copy);
  });
});

describe('CompletionAssembler and completionChunks with a passthrough', () => {
  const base = { id: 'msg_1', object: 'chat.completion.chunk' as const, created: 1, model: 'anthropic/claude-test' };

  it('keeps the message beside the neutral answer, and counts thinking alone as content', () => {
    const assembler = new CompletionAssembler();
    for (const event of STREAM.slice(0, 5)) assembler.add({ ...base, choices: [], anthropic: event });

    expect(assembler.hasContent).toBe(true);
    expect(carriesContent({ ...base, choices: [], anthropic: STREAM[4] })).toBe(true);
    expect(assembler.snapshot().anthropic?.content[1]).toEqual({ type: 'thinking', thinking: 'Let me ', signature: '' });
  });

  it('gives a kept passthrough answer as its own events first, then the neutral chunks, which a new assembler turns back into the same answer', () => {
    const completion: ChatCompletion = {
      id: 'msg_1',
      object: 'chat.completion',
      created: 1,
      model: 'anthropic/claude-test',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Calling.', refusal: null }, finish_reason: 'stop', logprobs: null }],
      anthropic: MESSAGE,
    };
    const chunks = completionChunks(completion, true);
    expect(chunks[0].anthropic?.type).toBe('message_start');
    const assembler = new CompletionAssembler();
    for (const chunk of chunks) assembler.add(chunk);

    expect(assembler.result()).toEqual(completion);
  });
});
