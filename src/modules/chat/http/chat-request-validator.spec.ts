import { GatewayError } from '../../../errors/gateway-error';
import { parseChatRequest } from './chat-request-validator';

const USER = { role: 'user', content: 'hi' };

function codeOf(body: unknown): string {
  try {
    parseChatRequest(body);
  } catch (err) {
    if (err instanceof GatewayError) return err.code;
    throw err;
  }
  throw new Error('accepted');
}

describe('parseChatRequest refusals', () => {
  it.each([
    ['a body that is not an object', [USER], 'request.invalid_body'],
    ['a field of the wrong type', { model: 'auto', messages: [USER], temperature: 'hot' }, 'request.invalid_body'],
    ['257 messages', { model: 'auto', messages: Array.from({ length: 257 }, () => USER) }, 'chat.too_many_messages'],
    ['nesting past the bound', { model: 'auto', messages: [USER], metadata: { a: JSON.parse('['.repeat(70) + ']'.repeat(70)) } }, 'request.nesting_too_deep'],
    ['a blank conversation', { model: 'auto', messages: [{ role: 'user', content: ' ' }] }, 'chat.blank_conversation'],
    ['tool calls on a user message', { model: 'auto', messages: [{ role: 'user', content: 'x', tool_calls: [] }] }, 'chat.invalid_tool_message'],
    ['a tool message without its call id', { model: 'auto', messages: [USER, { role: 'tool', content: 'x' }] }, 'chat.invalid_tool_message'],
    ['max_tokens against max_completion_tokens', { model: 'auto', messages: [USER], max_tokens: 5, max_completion_tokens: 6 }, 'chat.max_tokens_conflict'],
  ])('names %s with its code', (_name, body, code) => {
    expect(codeOf(body)).toBe(code);
  });
});
