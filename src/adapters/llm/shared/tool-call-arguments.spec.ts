import type { EventSourceMessage } from 'eventsource-parser';
import type { ChatCompletionChunk } from '../../../modules/providers/domain/chat-completion';
import { anthropicChunks } from '../anthropic/anthropic-stream';
import { ChunkFactory } from './openai-shapes';
import { withToolArguments } from './tool-call-arguments';

async function collect(chunks: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const received: ChatCompletionChunk[] = [];
  for await (const chunk of chunks) received.push(chunk);
  return received;
}

async function* from<T>(items: T[]): AsyncGenerator<T> {
  yield* items;
}

/** Each tool call's arguments as a client puts them back together, by index. */
function argumentsByIndex(chunks: ChatCompletionChunk[]): string[] {
  const joined: string[] = [];
  for (const chunk of chunks) {
    for (const call of chunk.choices[0]?.delta.tool_calls ?? []) joined[call.index] = (joined[call.index] ?? '') + (call.function?.arguments ?? '');
  }
  return joined;
}

const anthropicEvent = (data: object): EventSourceMessage => ({ event: (data as { type: string }).type, data: JSON.stringify(data), id: undefined });

describe('withToolArguments', () => {
  const factory = new ChunkFactory('chatcmpl-1', 'm');

  it('gives a call whose arguments never came {} just before the finish reason, and leaves the others alone', async () => {
    const received = await collect(
      withToolArguments(
        from([
          factory.role(),
          factory.toolCall({ index: 0, id: 'call_a', type: 'function', function: { name: 'get_time', arguments: '' } }),
          factory.toolCall({ index: 1, id: 'call_b', type: 'function', function: { name: 'get_weather', arguments: '' } }),
          factory.toolCall({ index: 1, function: { arguments: '{"city":' } }),
          factory.toolCall({ index: 1, function: { arguments: '"Oslo"}' } }),
          factory.finish('tool_calls'),
          factory.usage({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }),
        ]),
      ),
    );

    expect(argumentsByIndex(received)).toEqual(['{}', '{"city":"Oslo"}']);
    const finishAt = received.findIndex((chunk) => chunk.choices[0]?.finish_reason);
    expect(received[finishAt - 1].choices[0].delta.tool_calls).toEqual([{ index: 0, function: { arguments: '{}' } }]);
    expect(received.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: 3 } });
  });

  it('fills the call in place when it arrives in the finishing chunk itself', async () => {
    const finishing = factory.toolCall({ index: 0, id: 'call_a', type: 'function', function: { name: 'get_time', arguments: '' } });
    finishing.choices[0].finish_reason = 'tool_calls';

    const received = await collect(withToolArguments(from([factory.role(), finishing])));

    expect(received).toHaveLength(2);
    expect(received[1].choices[0]).toMatchObject({ finish_reason: 'tool_calls', delta: { tool_calls: [{ index: 0, id: 'call_a', function: { name: 'get_time', arguments: '{}' } }] } });
  });

  it('passes a stream without tool calls through unchanged', async () => {
    const chunks = [factory.role(), factory.content('hi'), factory.finish('stop')];

    expect(await collect(withToolArguments(from(chunks)))).toEqual(chunks);
  });

  it('makes an Anthropic tool_use block with no input_json_delta at all read as {}', async () => {
    const events = [
      anthropicEvent({ type: 'message_start', message: { id: 'msg_1', model: 'claude-test', content: [], usage: { input_tokens: 3, output_tokens: 1 } } }),
      anthropicEvent({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_time', input: {} } }),
      anthropicEvent({ type: 'content_block_stop', index: 0 }),
      anthropicEvent({ type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_2', name: 'list_files', input: {} } }),
      anthropicEvent({ type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '' } }),
      anthropicEvent({ type: 'content_block_stop', index: 1 }),
      anthropicEvent({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } }),
      anthropicEvent({ type: 'message_stop' }),
    ];

    const received = await collect(anthropicChunks(from(events)));

    expect(argumentsByIndex(received)).toEqual(['{}', '{}']);
    expect(received.find((chunk) => chunk.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('tool_calls');
  });
});
