import { cacheKey } from './cache-key';
import type { ChatRequest } from './chat-request';

const request: ChatRequest = { model: 'openai/gpt-4o', messages: [{ role: 'user', content: 'hi' }] };
const key = (extra: Partial<ChatRequest>) => cacheKey('openai/gpt-4o', { ...request, ...extra }, 100);

describe('cacheKey', () => {
  it.each<[string, Partial<ChatRequest>]>([
    ['logprobs', { logprobs: true }],
    ['top_logprobs', { logprobs: true, top_logprobs: 3 }],
    ['reasoning_effort', { reasoning_effort: 'high' }],
    ['temperature', { temperature: 0.2 }],
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
