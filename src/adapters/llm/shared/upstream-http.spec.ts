import { startAnthropicFake } from '../../../../test/fakes/anthropic-fake';
import { adapterOnFake } from '../../../../test/support/adapter-on-fake';
import { UpstreamError } from '../../../modules/providers/domain/upstream-error';
import { AnthropicProvider } from '../anthropic/anthropic-provider';

const apiKey = 'sk-ant-test-0123456789';
const upstream = adapterOnFake({ startFake: startAnthropicFake, apiKey, adapter: (endpoint, http) => new AnthropicProvider(endpoint, http), upstreamModel: 'claude-test' });

async function failure(): Promise<UpstreamError> {
  const caught: unknown = await upstream.completion(upstream.call()).catch((err: unknown) => err);
  expect(caught).toBeInstanceOf(UpstreamError);
  return caught as UpstreamError;
}

describe('UpstreamHttp, what a refusal keeps', () => {
  it('keeps the status, the request id, Retry-After and the body with our key redacted', async () => {
    upstream.fake.script({ kind: 'status', status: 429, retryAfter: '7', message: `rate limited for key ${apiKey}` });

    const err = await failure();

    expect(err).toMatchObject({ provider: 'anthropic', kind: 'unavailable', status: 429, retryAfter: '7', requestId: expect.stringMatching(/^req_[0-9a-f]{24}$/) });
    expect(err.bodyExcerpt).toBe('{"type":"error","error":{"type":"rate_limit_error","message":"rate limited for key [redacted]"}}');
    expect(err.message).toBe('anthropic answered HTTP 429');
  });

  it('cuts a long body to 2,048 characters, redacting a key that straddles the cut', async () => {
    const prefix = '{"type":"error","error":{"type":"invalid_request_error","message":"';
    const message = `${'x'.repeat(2048 - prefix.length - 5)} ${apiKey} ${'y'.repeat(100_000)}`;
    upstream.fake.script({ kind: 'status', status: 400, message });

    const err = await failure();

    expect(err).toMatchObject({ kind: 'bad_response', status: 400 });
    expect(err.bodyExcerpt).toHaveLength(2048);
    expect(err.bodyExcerpt?.endsWith(' [red')).toBe(true);
    expect(err.bodyExcerpt).not.toContain('sk-ant');
  });

  it('still answers on the same pool after a refusal', async () => {
    upstream.fake.script({ kind: 'status', status: 503 }, { kind: 'reply' });

    await failure();

    await expect(upstream.completion(upstream.call())).resolves.toMatchObject({ object: 'chat.completion' });
  });
});
