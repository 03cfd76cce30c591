import { GatewayError } from '../../../errors/gateway-error';
import { parseChatRequest } from './chat-request-validator';

const USER = { role: 'user', content: 'hi' };

function refusalOf(body: unknown): GatewayError {
  try {
    parseChatRequest(body);
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
  throw new Error('accepted');
}

describe('parseChatRequest refusals', () => {
  it.each([
    ['a body that is not an object', [USER], 'request.invalid_body'],
    ['a field of the wrong type', { model: 'auto', messages: [USER], temperature: 'hot' }, 'request.invalid_body'],
    ['257 messages', { model: 'auto', messages: Array.from({ length: 257 }, () => USER) }, 'chat.too_many_messages'],
    ['a blank conversation', { model: 'auto', messages: [{ role: 'user', content: ' ' }] }, 'chat.blank_conversation'],
    ['tool calls on a user message', { model: 'auto', messages: [{ role: 'user', content: 'x', tool_calls: [] }] }, 'chat.invalid_tool_message'],
    ['a tool message without its call id', { model: 'auto', messages: [USER, { role: 'tool', content: 'x' }] }, 'chat.invalid_tool_message'],
    ['max_tokens against max_completion_tokens', { model: 'auto', messages: [USER], max_tokens: 5, max_completion_tokens: 6 }, 'chat.max_tokens_conflict'],
  ])('names %s with its code', (_name, body, code) => {
    expect(refusalOf(body).code).toBe(code);
  });

  it.each([
    ['the body itself', [USER], null],
    ['a missing field', { messages: [USER] }, 'model'],
    ['a missing field of a message', { model: 'auto', messages: [USER, { content: 'x' }] }, 'messages[1].role'],
    ['a value of the wrong type', { model: 'auto', messages: [USER, USER, USER, { role: 'user', content: 42 }] }, 'messages[3].content'],
    ['a value out of range', { model: 'auto', messages: [USER], temperature: 3 }, 'temperature'],
    ['a value off its enum', { model: 'auto', messages: [USER], reasoning_effort: 'extreme' }, 'reasoning_effort'],
    ['a union that fits no branch', { model: 'auto', messages: [USER], tool_choice: 'sometimes' }, 'tool_choice'],
    ['a tool name off its pattern', { model: 'auto', messages: [USER], tools: [{ type: 'function', function: { name: 'a b' } }] }, 'tools[0].function.name'],
    ['n other than 1', { model: 'auto', messages: [USER], n: 2 }, 'n'],
    ['top_logprobs without logprobs', { model: 'auto', messages: [USER], top_logprobs: 2 }, 'logprobs'],
    ['too many messages', { model: 'auto', messages: Array.from({ length: 257 }, () => USER) }, 'messages'],
    ['a blank conversation', { model: 'auto', messages: [{ role: 'user', content: ' ' }] }, 'messages'],
    ['tool calls off the assistant', { model: 'auto', messages: [USER, { role: 'user', content: 'x', tool_calls: [] }] }, 'messages[1].tool_calls'],
    ['a tool message without its call id', { model: 'auto', messages: [USER, { role: 'tool', content: 'x' }] }, 'messages[1].tool_call_id'],
    ['max_tokens against max_completion_tokens', { model: 'auto', messages: [USER], max_tokens: 5, max_completion_tokens: 6 }, 'max_tokens'],
  ])('names the field at fault in param: %s', (_name, body, param) => {
    expect(refusalOf(body).param).toBe(param);
  });

  it('says what n must be, null being as good as absent', () => {
    expect(refusalOf({ model: 'auto', messages: [USER], n: 2 }).message).toBe('n must be 1: one quote buys one completion');
    expect(parseChatRequest({ model: 'auto', messages: [USER], n: null })).toEqual({ model: 'auto', messages: [USER] });
  });
});
