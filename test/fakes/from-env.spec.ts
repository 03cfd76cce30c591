import { startFakeFromEnv } from './from-env';

describe('startFakeFromEnv', () => {
  it('starts the named fake with a reply delay and records nothing', async () => {
    const fake = await startFakeFromEnv({ FAKE_KIND: 'anthropic', FAKE_REPLY_DELAY_MS: '100' });
    try {
      const startedAt = Date.now();
      const response = await fetch(`${fake.url}/messages`, {
        method: 'POST',
        headers: { 'x-api-key': 'k', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude-fake', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      });

      expect(fake.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect(await response.json()).toMatchObject({ type: 'message', content: [{ text: 'fake anthropic reply to: hi' }] });
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(90);
      expect(fake.requests).toEqual([]);
    } finally {
      await fake.close();
    }
  });

  it.each([
    [{ FAKE_KIND: 'mistral' }, /FAKE_KIND must be one of openai, anthropic, gemini/],
    [{}, /FAKE_KIND must be one of/],
    [{ FAKE_KIND: 'gemini', PORT: 'eighty' }, /PORT must be a whole number/],
    [{ FAKE_KIND: 'openai', FAKE_REPLY_DELAY_MS: '-1' }, /FAKE_REPLY_DELAY_MS must be a whole number/],
  ])('refuses %j', async (env, message) => {
    await expect(startFakeFromEnv(env)).rejects.toThrow(message);
  });
});
