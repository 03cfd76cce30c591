import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import type { ChatCompletion, ChatCompletionChunk } from '../../providers/domain/chat-completion';
import { ANTHROPIC_FRAMING, anthropicEvents, anthropicMessage, type AnthropicEvent } from './anthropic-codec';

function completion(message: Partial<ChatCompletion['choices'][number]['message']>, finishReason: ChatCompletion['choices'][number]['finish_reason']): ChatCompletion {
  return {
    id: 'chatcmpl-abc',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o',
    choices: [{ index: 0, message: { role: 'assistant', content: null, refusal: null, ...message }, finish_reason: finishReason, logprobs: null }],
    usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
  };
}

function chunk(delta: ChatCompletionChunk['choices'][number]['delta'], finishReason: ChatCompletionChunk['choices'][number]['finish_reason'] = null): ChatCompletionChunk {
  return { id: 'chatcmpl-abc', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: finishReason }] };
}

async function* from<T>(items: T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

async function events(chunks: ChatCompletionChunk[]): Promise<Array<AnthropicEvent | RawMessageStreamEvent>> {
  const out: Array<AnthropicEvent | RawMessageStreamEvent> = [];
  for await (const event of anthropicEvents(from(chunks))) out.push(event);
  return out;
}

describe('anthropicMessage', () => {
  it('renders a text answer as a message with end_turn and usage', () => {
    expect(anthropicMessage(completion({ content: 'Hello' }, 'stop'))).toEqual({
      id: 'msg_abc',
      type: 'message',
      role: 'assistant',
      model: 'gpt-4o',
      content: [{ type: 'text', text: 'Hello' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 7 },
    });
  });

  it('renders tool calls as tool_use blocks with their input parsed, and tool_use as the stop reason', () => {
    const answer = anthropicMessage(
      completion(
        {
          content: 'Checking.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_2', type: 'function', function: { name: 'time', arguments: 'not json' } },
          ],
        },
        'tool_calls',
      ),
    );
    expect(answer.content).toEqual([
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Paris' } },
      { type: 'tool_use', id: 'call_2', name: 'time', input: {} },
    ]);
    expect(answer.stop_reason).toBe('tool_use');
  });

  it.each([
    ['length', 'max_tokens'],
    ['content_filter', 'refusal'],
    ['stop', 'end_turn'],
  ] as const)('maps finish reason %s to %s', (finish, stop) => {
    expect(anthropicMessage(completion({ content: 'x' }, finish)).stop_reason).toBe(stop);
  });
});

describe('anthropicEvents', () => {
  it('renders text chunks as message_start, one text block, message_delta with the usage, message_stop', async () => {
    const usage: ChatCompletionChunk = { ...chunk({}), choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } };
    expect(await events([chunk({ role: 'assistant', content: '' }), chunk({ content: 'Hel' }), chunk({ content: 'lo' }), chunk({}, 'stop'), usage])).toEqual([
      {
        type: 'message_start',
        message: { id: 'msg_abc', type: 'message', role: 'assistant', model: 'gpt-4o', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 0, output_tokens: 0 } },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hel' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'lo' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { input_tokens: 5, output_tokens: 2 } },
      { type: 'message_stop' },
    ]);
  });

  it('renders tool calls as tool_use blocks whose arguments arrive as input_json_delta', async () => {
    const rendered = await events([
      chunk({ content: 'Let me see.' }),
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'weather', arguments: '' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '"Oslo"}' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_2', type: 'function', function: { name: 'time', arguments: '{}' } }] }),
      chunk({}, 'tool_calls'),
    ]);

    expect(rendered.slice(1)).toEqual([
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me see.' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'call_1', name: 'weather', input: {} } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"Oslo"}' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'call_2', name: 'time', input: {} } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{}' } },
      { type: 'content_block_stop', index: 2 },
      { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 0 } },
      { type: 'message_stop' },
    ]);
  });

  it('frames each event on an event line, with ping as the keep-alive', () => {
    expect(ANTHROPIC_FRAMING.frame({ type: 'message_stop' })).toBe('event: message_stop\ndata: {"type":"message_stop"}\n\n');
    expect(ANTHROPIC_FRAMING.keepAlive).toBe('event: ping\ndata: {"type": "ping"}\n\n');
  });
});

describe('an Anthropic model’s own answer, passed through', () => {
  const message = {
    id: 'msg_up',
    type: 'message' as const,
    role: 'assistant' as const,
    model: 'claude-upstream-name',
    content: [
      { type: 'thinking' as const, thinking: 'Hmm.', signature: 'sig' },
      { type: 'text' as const, text: 'Hi.', citations: null },
    ],
    stop_reason: 'pause_turn' as const,
    stop_sequence: null,
    usage: { input_tokens: 3, output_tokens: 5, cache_creation_input_tokens: 1, cache_read_input_tokens: 2, cache_creation: null, server_tool_use: null, service_tier: 'standard' as const },
  };

  it('answers JSON with its message whole, named as the gateway names the model', () => {
    expect(anthropicMessage({ ...completion({ content: 'Hi.' }, 'stop'), model: 'anthropic/claude-x', anthropic: message })).toEqual({ ...message, model: 'anthropic/claude-x' });
  });

  it('streams its events as sent, message_start naming the model as the gateway does, and skips chunks that carry none', async () => {
    const start = { type: 'message_start' as const, message: { ...message, content: [], stop_reason: null } };
    const delta = { type: 'content_block_delta' as const, index: 0, delta: { type: 'thinking_delta' as const, thinking: 'Hmm.' } };
    const carried = (event: RawMessageStreamEvent): ChatCompletionChunk => ({ ...chunk({}), model: 'anthropic/claude-x', choices: [], anthropic: event });

    const out = await events([carried(start), chunk({ content: 'neutral filler' }), carried(delta), carried({ type: 'message_stop' })]);

    expect(out).toEqual([{ ...start, message: { ...start.message, model: 'anthropic/claude-x' } }, delta, { type: 'message_stop' }]);
  });
});
