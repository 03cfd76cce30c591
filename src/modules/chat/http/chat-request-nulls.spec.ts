import { cacheKey } from '../domain/cache-key';
import { requestFingerprint } from '../domain/request-fingerprint';
import { parseChatRequest } from './chat-request-validator';

const TOOL = { type: 'function', function: { name: 'lookup', description: 'Looks it up.', parameters: { type: 'object' }, strict: false } };
const CONVERSATION = [
  { role: 'system', content: 'Be brief.', name: 'rules' },
  { role: 'user', content: 'Look it up.' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{}' } }] },
  { role: 'tool', content: 'found', tool_call_id: 'call_1' },
];

/** Every optional field of the body, as OpenAI's SDK types let a client send them: null. */
const NULL_FIELDS = {
  max_tokens: null,
  max_completion_tokens: null,
  temperature: null,
  top_p: null,
  stream: null,
  n: null,
  tool_choice: null,
  stop: null,
  seed: null,
  presence_penalty: null,
  frequency_penalty: null,
  response_format: null,
  stream_options: null,
  parallel_tool_calls: null,
  logprobs: null,
  top_logprobs: null,
  reasoning_effort: null,
  user: null,
  metadata: null,
  service_tier: null,
};

describe('parseChatRequest: null is unset', () => {
  it('leaves out every optional field sent as null', () => {
    expect(parseChatRequest({ model: 'auto', messages: CONVERSATION, tools: null, ...NULL_FIELDS })).toEqual(parseChatRequest({ model: 'auto', messages: CONVERSATION }));
    expect(parseChatRequest({ model: 'auto', messages: CONVERSATION, tools: null, ...NULL_FIELDS })).toEqual({
      model: 'auto',
      messages: parseChatRequest({ model: 'auto', messages: CONVERSATION }).messages,
    });
  });

  it("leaves out a message's null name, tool_calls and tool_call_id, so a null tool_calls is allowed on any role", () => {
    const request = parseChatRequest({
      model: 'auto',
      messages: [
        { role: 'system', content: 'Be brief.', name: null, tool_calls: null, tool_call_id: null },
        { role: 'user', content: 'hi', name: null, tool_calls: null, tool_call_id: null },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'hi' },
    ]);
  });

  it("leaves out a tool function's null description, parameters and strict, and keeps the rest as sent", () => {
    const request = parseChatRequest({
      model: 'auto',
      messages: [{ role: 'user', content: 'Look it up.' }],
      tools: [{ type: 'function', function: { name: 'lookup', description: null, parameters: null, strict: null } }, TOOL],
    });
    expect(request.tools).toEqual([{ type: 'function', function: { name: 'lookup' } }, TOOL]);
  });

  it('takes the other of max_tokens and max_completion_tokens when one is null, and a null top_logprobs needs no logprobs', () => {
    const messages = [{ role: 'user', content: 'hi' }];
    expect(parseChatRequest({ model: 'auto', messages, max_tokens: null, max_completion_tokens: 7 }).max_tokens).toBe(7);
    expect(parseChatRequest({ model: 'auto', messages, max_tokens: 7, max_completion_tokens: null }).max_tokens).toBe(7);
    expect(parseChatRequest({ model: 'auto', messages, top_logprobs: null })).toEqual({ model: 'auto', messages });
  });

  it('keeps refusing what is neither null nor valid', () => {
    expect(() => parseChatRequest({ model: 'auto', messages: [{ role: 'user', content: 'hi' }], temperature: 'hot' })).toThrow('temperature must be number or null');
    expect(() => parseChatRequest({ model: null, messages: [{ role: 'user', content: 'hi' }] })).toThrow('model must be string');
    expect(() => parseChatRequest({ model: 'auto', messages: [{ role: null, content: 'hi' }] })).toThrow('messages[0].role must be one of');
  });

  it('gives a request with nulls the cache key and the redelivery fingerprint of the same request without them', () => {
    const plain = parseChatRequest({ model: 'auto', messages: CONVERSATION, tools: [TOOL], temperature: 0.5 });
    const nulls = parseChatRequest({
      model: 'auto',
      messages: CONVERSATION.map((message) => ({ name: null, tool_calls: null, tool_call_id: null, ...message })),
      tools: [TOOL],
      ...NULL_FIELDS,
      temperature: 0.5,
    });
    expect(cacheKey('/v1/chat/completions', 'openai/gpt-4o', nulls, 100)).toBe(cacheKey('/v1/chat/completions', 'openai/gpt-4o', plain, 100));
    expect(requestFingerprint(nulls)).toBe(requestFingerprint(plain));
  });
});
