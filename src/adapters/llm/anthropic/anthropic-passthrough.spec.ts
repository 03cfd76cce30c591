import { adapterOnFake } from '../../../../test/support/adapter-on-fake';
import { ANTHROPIC_ON_FAKE } from '../../../../test/support/anthropic-on-fake';
import { weather } from '../../../../test/support/spec-fakes';
import type { AnthropicNativeRequest } from '../../../modules/providers/domain/anthropic-native';
import type { ChatRequest } from '../../../modules/providers/domain/chat-request';

const upstream = adapterOnFake(ANTHROPIC_ON_FAKE);
const { completion, chunks, sentBody } = upstream;

const SLOT: AnthropicNativeRequest = {
  system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hello there', cache_control: { type: 'ephemeral', ttl: '1h' } }] }],
};

/** A request from the Messages surface: its neutral form and its Anthropic slot; a cap that leaves room to think. */
function fromMessages(slot: Partial<AnthropicNativeRequest> = {}, request: Partial<ChatRequest> = {}, maxTokens = 4000) {
  return {
    ...upstream.call({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hello there' },
      ],
      ...request,
      anthropic: { ...SLOT, ...slot },
    }),
    maxTokens,
  };
}

/** Each run of equal names once. */
function runs(names: string[]): string[] {
  return names.filter((name, index) => name !== names[index - 1]);
}

describe('AnthropicProvider, a request from the Messages surface (its Anthropic slot)', () => {
  it('sends the slot’s system, messages and tools as written, cache_control included, instead of translating the neutral ones', async () => {
    const tools = [{ name: 'get_weather', input_schema: { type: 'object' as const }, cache_control: { type: 'ephemeral' as const } }];
    await completion(fromMessages({ tools, top_k: 3 }, { tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }] }));

    expect(await sentBody()).toEqual({ model: 'claude-test', max_tokens: 4000, system: SLOT.system, messages: SLOT.messages, tools, top_k: 3, stream: false });
  });

  it('thinks within the billed cap: the budget is clamped below max_tokens, and the temperature, top_p below 0.95 and top_k Anthropic refuses while thinking are dropped', async () => {
    const call = fromMessages({ thinking: { type: 'enabled', budget_tokens: 9000 }, top_k: 3 }, { temperature: 0.2, reasoning_effort: 'medium' }, 2000);
    await completion(call);

    const body = await sentBody();
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 1999 });
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('top_k');
    expect(upstream.provider.adjustments(call)).toEqual({ dropped: ['temperature'], rewritten: ['reasoning_effort'] });
  });

  it.each([
    ['a cap below the minimum budget', {}, 1024],
    ['a forced tool', { tools: [{ type: 'function' as const, function: { name: 'get_weather' } }], tool_choice: 'required' as const }, 4000],
  ])('does not think with %s, which Anthropic would refuse, and says reasoning_effort was dropped', async (_name, request, maxTokens) => {
    const call = fromMessages({ thinking: { type: 'enabled', budget_tokens: 2048 } }, { ...request, reasoning_effort: 'low' }, maxTokens);
    await completion(call);

    expect(await sentBody()).not.toHaveProperty('thinking');
    expect(upstream.provider.adjustments(call).dropped).toContain('reasoning_effort');
  });

  it('keeps a top_p of 0.95 or more while thinking', async () => {
    await completion(fromMessages({ thinking: { type: 'enabled', budget_tokens: 1024 } }, { top_p: 0.97 }));
    expect((await sentBody()).top_p).toBe(0.97);
  });

  it('answers JSON with the translation and, beside it, the message as Anthropic sent it', async () => {
    upstream.fake.script({ kind: 'reply', text: 'Done.', redactedThinking: true });
    const answer = await completion(fromMessages({ thinking: { type: 'enabled', budget_tokens: 1024 } }));

    expect(answer.choices[0].message.content).toBe('Done.');
    expect(answer.anthropic?.content.map((block) => block.type)).toEqual(['redacted_thinking', 'thinking', 'text']);
    expect(answer.anthropic?.model).toBe('claude-test');
  });

  it('streams every event but ping on a chunk, on the one it translates to or on one without choices, in order', async () => {
    upstream.fake.script({ kind: 'reply', toolCalls: [weather] });
    const received = await chunks(fromMessages({ thinking: { type: 'enabled', budget_tokens: 1024 } }));
    const events = received.flatMap((chunk) => (chunk.anthropic ? [chunk.anthropic] : []));

    expect(runs(events.map((event) => event.type))).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(runs(events.flatMap((event) => (event.type === 'content_block_delta' ? [event.delta.type] : [])))).toEqual(['thinking_delta', 'signature_delta', 'input_json_delta']);
    expect(events.map((event): string => event.type)).not.toContain('ping');
    // The translation still carries the tool call and the finish reason.
    expect(received.some((chunk) => chunk.choices[0]?.delta.tool_calls)).toBe(true);
    expect(received.find((chunk) => chunk.choices[0]?.finish_reason)?.choices[0].finish_reason).toBe('tool_calls');
  });

  it('attaches nothing to a request from chat, which has no slot', async () => {
    const received = await chunks(upstream.call());
    expect(received.some((chunk) => chunk.anthropic)).toBe(false);
    expect((await completion(upstream.call())).anthropic).toBeUndefined();
  });
});
