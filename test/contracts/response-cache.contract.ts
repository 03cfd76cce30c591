import { randomUUID } from 'node:crypto';
import type { ResponseCache } from '../../src/modules/chat/ports/response-cache';
import type { ChatCompletion } from '../../src/modules/providers/domain/chat-completion';

export function completion(text = 'cached answer'): ChatCompletion {
  return {
    id: `chatcmpl-${randomUUID()}`,
    object: 'chat.completion',
    created: 1_763_800_000,
    model: 'openai/gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
  };
}

/** The behaviour every ResponseCache adapter must have. */
export function responseCacheContract(open: () => Promise<{ cache: ResponseCache; close: () => Promise<void> }>): void {
  let cache: ResponseCache;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ cache, close } = await open());
  });
  afterAll(() => close());

  it('returns what was stored under the key, and a miss for other keys', async () => {
    const key = randomUUID();
    const value = completion();
    await cache.set(key, value, 60);
    expect(await cache.get(key)).toEqual(value);
    expect(await cache.get(randomUUID())).toBeNull();
  });

  it('forgets an entry once its TTL has passed', async () => {
    const key = randomUUID();
    await cache.set(key, completion(), 1);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await cache.get(key)).toBeNull();
  });
}
