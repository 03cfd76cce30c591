import type { ChatRequest } from '../../providers/domain/chat-request';
import { requestFingerprint } from './request-fingerprint';

const request = (overrides: Partial<ChatRequest> = {}): ChatRequest => ({ model: 'gpt', messages: [{ role: 'user', content: 'hello' }], max_tokens: 50, ...overrides }) as ChatRequest;

describe('requestFingerprint', () => {
  it('is the same whether the answer is asked as JSON or as a stream, with or without usage', () => {
    const json = requestFingerprint(request());
    expect(requestFingerprint(request({ stream: true }))).toBe(json);
    expect(requestFingerprint(request({ stream: true, stream_options: { include_usage: true } }))).toBe(json);
  });

  it('does not depend on the order of keys, at any depth', () => {
    const a = { model: 'gpt', max_tokens: 50, messages: [{ role: 'user', content: 'hello' }], response_format: { type: 'json_object' } } as unknown as ChatRequest;
    const b = { response_format: { type: 'json_object' }, messages: [{ content: 'hello', role: 'user' }], max_tokens: 50, model: 'gpt' } as unknown as ChatRequest;
    expect(requestFingerprint(a)).toBe(requestFingerprint(b));
  });

  it('changes with anything else in the body', () => {
    const base = requestFingerprint(request());
    expect(requestFingerprint(request({ messages: [{ role: 'user', content: 'hellO' }] }))).not.toBe(base);
    expect(requestFingerprint(request({ max_tokens: 51 }))).not.toBe(base);
    expect(requestFingerprint(request({ temperature: 0 }))).not.toBe(base);
    expect(requestFingerprint(request({ model: 'auto' }))).not.toBe(base);
  });

  it('is a SHA-256 hex digest', () => {
    expect(requestFingerprint(request())).toMatch(/^[0-9a-f]{64}$/);
  });
});
