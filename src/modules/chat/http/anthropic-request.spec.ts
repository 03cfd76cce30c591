import { GatewayError } from '../../../errors/gateway-error';
import type { ChatRequest } from '../../providers/domain/chat-request';
import { estimateInputTokens } from '../domain/token-estimate';
import { parseMessagesRequest, reasoningEffort } from './anthropic-request';
import { parseChatRequest } from './chat-request-validator';

const base = { model: 'openai/gpt-4o', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] };

/** The neutral request alone, without the Anthropic slot. */
function neutral(body: unknown, options?: { countTokens?: boolean }): ChatRequest {
  const { anthropic: _slot, ...request } = parseMessagesRequest(body, options);
  return request;
}

function refusal(body: unknown, options?: { countTokens?: boolean }): GatewayError {
  try {
    parseMessagesRequest(body, options);
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
  throw new Error('the body was accepted');
}

describe('parseMessagesRequest', () => {
  it('maps a plain request to the neutral one', () => {
    expect(neutral(base)).toEqual({ model: 'openai/gpt-4o', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] });
  });

  it('puts the system prompt, a string or text blocks, first as a system message', () => {
    expect(parseMessagesRequest({ ...base, system: 'Be brief.' }).messages[0]).toEqual({ role: 'system', content: 'Be brief.' });
    expect(
      parseMessagesRequest({
        ...base,
        system: [
          { type: 'text', text: 'One.' },
          { type: 'text', text: 'Two.', cache_control: { type: 'ephemeral' } },
        ],
      }).messages[0],
    ).toEqual({
      role: 'system',
      content: 'One.\nTwo.',
    });
  });

  it('maps the sampling fields, stop sequences, metadata and stream, and leaves top_k and unknown fields out', () => {
    const request = neutral({ ...base, temperature: 0.5, top_p: 0.9, top_k: 40, stop_sequences: ['END'], metadata: { user_id: 'u-1' }, stream: true, container: 'c', invented: 1 });

    expect(request).toEqual({ ...base, temperature: 0.5, top_p: 0.9, stop: ['END'], user: 'u-1', stream: true });
  });

  it('takes null as unset', () => {
    const nulls = { ...base, system: null, temperature: null, top_p: null, top_k: null, stop_sequences: null, stream: null, tools: null, tool_choice: null, metadata: null, thinking: null };
    expect(parseMessagesRequest(nulls)).toEqual(parseMessagesRequest(base));
    expect(parseMessagesRequest({ ...base, metadata: { user_id: null } })).toEqual(parseMessagesRequest(base));
  });

  it('maps images given as base64 or as a url', () => {
    const request = parseMessagesRequest({
      ...base,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
          ],
        },
      ],
    });
    expect(request.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
        ],
      },
    ]);
  });

  it('maps a tool loop: tool_use as tool calls, tool_result (is_error marked) as tool messages before the text, thinking dropped', () => {
    const request = parseMessagesRequest({
      ...base,
      tools: [{ name: 'weather', description: 'the weather', input_schema: { type: 'object' } }],
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 's' },
            { type: 'redacted_thinking', data: 'xyz' },
            { type: 'text', text: 'Checking.' },
            { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'down' }], is_error: true },
            { type: 'text', text: 'And now?' },
          ],
        },
      ],
    });

    expect(request.tools).toEqual([{ type: 'function', function: { name: 'weather', description: 'the weather', parameters: { type: 'object' } } }]);
    expect(request.messages).toEqual([
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'Error: down' },
      { role: 'user', content: [{ type: 'text', text: 'And now?' }] },
    ]);
  });

  it.each([
    [{ type: 'auto' }, { tool_choice: 'auto' }],
    [{ type: 'any' }, { tool_choice: 'required' }],
    [{ type: 'none' }, { tool_choice: 'none' }],
    [{ type: 'tool', name: 'weather' }, { tool_choice: { type: 'function', function: { name: 'weather' } } }],
    [
      { type: 'auto', disable_parallel_tool_use: true },
      { tool_choice: 'auto', parallel_tool_calls: false },
    ],
  ])('maps tool_choice %j', (choice, expected) => {
    expect(neutral({ ...base, tool_choice: choice })).toEqual({ ...base, ...expected });
  });

  it.each([
    [1024, 'low'],
    [4095, 'low'],
    [4096, 'medium'],
    [16383, 'medium'],
    [16384, 'high'],
  ] as const)('maps a thinking budget of %i to %s effort', (budget, effort) => {
    expect(reasoningEffort(budget)).toBe(effort);
    expect(parseMessagesRequest({ ...base, thinking: { type: 'enabled', budget_tokens: budget } }).reasoning_effort).toBe(effort);
  });

  it('sets no effort for disabled thinking', () => {
    expect(neutral({ ...base, thinking: { type: 'disabled' } })).toEqual(base);
  });

  it('estimates the same tokens as the same request on chat', () => {
    const onMessages = parseMessagesRequest({ ...base, system: 'Be brief.', messages: [{ role: 'user', content: 'x'.repeat(400) }] });
    const onChat = parseChatRequest({
      model: base.model,
      max_tokens: 100,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'x'.repeat(400) },
      ],
    });
    expect(estimateInputTokens(onMessages)).toBe(estimateInputTokens(onChat));
  });

  describe('the Anthropic slot, what only an Anthropic model reads', () => {
    it('keeps the blocks as written, known fields alone, cache_control, signed thinking and redacted thinking, and the thinking budget and top_k', () => {
      const request = parseMessagesRequest({
        ...base,
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral', ttl: '1h' }, invented: 1 }],
        tools: [{ name: 'weather', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }],
        thinking: { type: 'enabled', budget_tokens: 2048 },
        top_k: 5,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Weather?', cache_control: { type: 'ephemeral' }, citations: [] }] },
          {
            role: 'assistant',
            content: [
              { type: 'redacted_thinking', data: 'opaque' },
              { type: 'thinking', thinking: 'Call it.', signature: 'sig', extra: true },
              { type: 'thinking', thinking: 'Unsigned, cannot be checked.' },
              { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } },
            ],
          },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true, content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }] }],
          },
        ],
      });

      expect(request.anthropic).toEqual({
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        tools: [{ name: 'weather', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }],
        thinking: { type: 'enabled', budget_tokens: 2048 },
        top_k: 5,
        messages: [
          { role: 'user', content: [{ type: 'text', text: 'Weather?', cache_control: { type: 'ephemeral' } }] },
          {
            role: 'assistant',
            content: [
              { type: 'redacted_thinking', data: 'opaque' },
              { type: 'thinking', thinking: 'Call it.', signature: 'sig' },
              { type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true, content: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }] }] },
        ],
      });
    });

    it('refuses a fifth cache_control breakpoint, as Anthropic does, and a breakpoint that is not ephemeral', () => {
      const marked = { type: 'text', text: 'x', cache_control: { type: 'ephemeral' } };
      expect(refusal({ ...base, system: [marked, marked], messages: [{ role: 'user', content: [marked, marked, marked] }] })).toMatchObject({ code: 'request.invalid_body', param: 'cache_control' });
      expect(parseMessagesRequest({ ...base, system: [marked, marked], messages: [{ role: 'user', content: [marked, marked] }] }).anthropic?.system).toHaveLength(2);
      expect(refusal({ ...base, messages: [{ role: 'user', content: [{ ...marked, cache_control: { type: 'forever' } }] }] })).toMatchObject({ code: 'request.invalid_body' });
    });

    it('refuses an image or a tool_result in an assistant turn, which the neutral request (the estimate, the guard) has no place for', () => {
      const image = { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } };
      const result = { type: 'tool_result', tool_use_id: 'toolu_1', content: 'text the guard never read' };
      for (const block of [image, result]) {
        expect(
          refusal({
            ...base,
            messages: [
              { role: 'user', content: 'Hi' },
              { role: 'assistant', content: [block] },
            ],
          }),
        ).toMatchObject({
          code: 'request.invalid_body',
          param: 'messages[1].content',
        });
      }
    });

    it("prices the running turn's thinking, which Anthropic reads and bills, and not earlier turns', which it strips", () => {
      const thinking = (text: string) => ({ type: 'thinking', thinking: text, signature: 'sig' });
      const loop = (earlier: string, running: string): unknown => ({
        ...base,
        messages: [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: [thinking(earlier), { type: 'text', text: 'ok' }] },
          { role: 'user', content: 'two' },
          { role: 'assistant', content: [thinking(running), { type: 'tool_use', id: 't1', name: 'weather', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'sunny' }] },
        ],
      });
      const plain = estimateInputTokens(parseMessagesRequest(loop('', '')));

      expect(estimateInputTokens(parseMessagesRequest(loop('x'.repeat(4000), '')))).toBe(plain);
      expect(estimateInputTokens(parseMessagesRequest(loop('', 'x'.repeat(4000))))).toBe(plain + 1000);
    });
  });

  it.each([
    ['no max_tokens', { model: base.model, messages: base.messages }, 'request.invalid_body', 'max_tokens'],
    ['a system role', { ...base, messages: [{ role: 'system', content: 'x' }] }, 'request.invalid_body', 'messages[0].role'],
    ['an unknown block', { ...base, messages: [{ role: 'user', content: [{ type: 'document', source: {} }] }] }, 'request.invalid_body', 'messages[0].content[0].type'],
    ['a server tool', { ...base, tools: [{ type: 'web_search_20250305', name: 'web_search', input_schema: { type: 'object' } }] }, 'request.invalid_body', 'tools[0].type'],
    ['a temperature above 1', { ...base, temperature: 1.5 }, 'request.invalid_body', 'temperature'],
    ['a tool_choice without its name', { ...base, tool_choice: { type: 'tool' } }, 'request.invalid_body', 'tool_choice.name'],
    ['thinking without a budget', { ...base, thinking: { type: 'enabled' } }, 'request.invalid_body', 'thinking.budget_tokens'],
    ['tool_use from the user', { ...base, messages: [{ role: 'user', content: [{ type: 'tool_use', id: 't', name: 'n', input: {} }] }] }, 'request.invalid_body', 'messages[0].content'],
    ['a blank conversation', { ...base, messages: [{ role: 'user', content: '  ' }] }, 'chat.blank_conversation', 'messages'],
  ])('refuses %s with 400', (_name, body, code, param) => {
    expect(refusal(body)).toMatchObject({ code, param });
  });

  it('refuses more than 256 messages with chat.too_many_messages', () => {
    expect(refusal({ ...base, messages: Array.from({ length: 257 }, () => ({ role: 'user', content: 'x' })) })).toMatchObject({ code: 'chat.too_many_messages' });
  });

  it('does not need max_tokens for count_tokens', () => {
    expect(neutral({ model: base.model, messages: base.messages }, { countTokens: true })).toEqual({ model: base.model, messages: base.messages });
  });
});
