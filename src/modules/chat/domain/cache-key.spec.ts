import { cacheKey } from './cache-key';
import type { ChatRequest } from '../../providers/domain/chat-request';

const request: ChatRequest = { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
const key = (extra: Partial<ChatRequest>) => cacheKey('/v1/chat/completions', 'openai/gpt-4o', { ...request, ...extra }, 100);

describe('cacheKey', () => {
  it.each<[string, Partial<ChatRequest>]>([
    ['logprobs', { logprobs: true }],
    ['top_logprobs', { logprobs: true, top_logprobs: 3 }],
    ['reasoning_effort', { reasoning_effort: 'high' }],
    ['temperature', { temperature: 0.2 }],
    ['the Anthropic slot (a thinking block sent back)', { anthropic: { messages: [{ role: 'assistant', content: [{ type: 'thinking', thinking: 'x', signature: 's' }] }] } }],
    ['the Anthropic slot (a thinking budget)', { anthropic: { messages: [], thinking: { type: 'enabled', budget_tokens: 2048 } } }],
    ['the Anthropic slot (a cache_control breakpoint)', { anthropic: { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }] } }],
  ])('changes with %s, which changes the answer', (_name, extra) => {
    expect(key(extra)).not.toBe(key({}));
  });

  it.each<[string, Partial<ChatRequest>]>([
    ['stream', { stream: true }],
    ['user', { user: 'u-1' }],
    ['metadata', { metadata: { team: 'a' } }],
    ['service_tier', { service_tier: 'flex' }],
  ])('stays the same with %s, which does not', (_name, extra) => {
    expect(key(extra)).toBe(key({}));
  });
});

describe('cacheKey and key order', () => {
  it('is the same whatever order the request writes its objects keys in', () => {
    const tool = (parameters: Record<string, unknown>) => ({ type: 'function' as const, function: { name: 'f', parameters } });
    const one = key({ tools: [tool({ type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } } })], response_format: { type: 'json_object' } });
    const other = key({ response_format: { type: 'json_object' }, tools: [tool({ properties: { b: { type: 'number' }, a: { type: 'string' } }, type: 'object' })] });

    expect(one).toBe(other);
  });
});

describe('cacheKey and the surface', () => {
  it('differs between chat and Anthropic Messages for the same neutral request', () => {
    expect(cacheKey('/v1/messages', 'openai/gpt-4o', request, 100)).not.toBe(key({}));
  });
});
