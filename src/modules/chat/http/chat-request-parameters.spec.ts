import { GatewayError } from '../../../errors/gateway-error';
import { parseChatRequest } from './chat-request-validator';

const MESSAGES = [{ role: 'user', content: 'hi' }];

function refusal(body: Record<string, unknown>): string {
  try {
    parseChatRequest({ model: 'auto', messages: MESSAGES, ...body });
  } catch (err) {
    if (err instanceof GatewayError && err.type === 'bad_request') return err.message;
    throw err;
  }
  throw new Error('accepted');
}

describe('parseChatRequest, the settings forwarded where a provider has them', () => {
  it('keeps logprobs, top_logprobs, reasoning_effort, user, metadata and service_tier', () => {
    const settings = { logprobs: true, top_logprobs: 5, reasoning_effort: 'minimal', user: 'u-1', metadata: { team: 'search' }, service_tier: 'priority' };

    expect(parseChatRequest({ model: 'auto', messages: MESSAGES, ...settings })).toMatchObject(settings);
  });

  it.each([
    [{ top_logprobs: 3 }, /logprobs/],
    [{ logprobs: false, top_logprobs: 3 }, /must be true when top_logprobs is set/],
    [{ logprobs: true, top_logprobs: 21 }, /top_logprobs/],
    [{ reasoning_effort: 'extreme' }, /reasoning_effort/],
    [{ service_tier: 'gold' }, /service_tier/],
    [{ user: 'u'.repeat(257) }, /user/],
    [{ metadata: { a: 1 } }, /metadata/],
    [{ metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, /metadata/],
    [{ metadata: { ['k'.repeat(65)]: 'v' } }, /metadata/],
  ])('refuses %j with a 400 naming the field', (body, message) => {
    expect(refusal(body)).toMatch(message);
  });
});
