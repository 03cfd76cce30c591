import { redactSecrets } from './secret-redaction';

describe('redactSecrets', () => {
  it('replaces every occurrence of a credential the gateway sent', () => {
    expect(redactSecrets('key my-own-key-123 rejected; my-own-key-123 is revoked', ['my-own-key-123'])).toBe('key [redacted] rejected; [redacted] is revoked');
  });

  it.each([
    ['Incorrect API key provided: sk-proj-abcDEF123456_xyz.', 'Incorrect API key provided: [redacted].'],
    ['invalid x-api-key sk-ant-api03-AAAAbbbbCCCC', 'invalid x-api-key [redacted]'],
    ['key AIzaSyD-abcdefghijklmnopqrstuvwx is not valid', 'key [redacted] is not valid'],
    ['got Authorization: Bearer abc.def.ghi here', 'got Authorization: [redacted] here'],
    ['{"api_key": "whatever-it-is", "ok": 1}', '{"api_key": "[redacted]", "ok": 1}'],
    ['xai-0123456789abcdef and nvapi-0123456789abcdef', '[redacted] and [redacted]'],
  ])('redacts key-shaped text: %s', (text, expected) => {
    expect(redactSecrets(text, [])).toBe(expected);
  });

  it('leaves ordinary error text alone', () => {
    const text = '{"error":{"type":"invalid_request_error","message":"max_tokens: must be at most 8192; ask-for-help"}}';
    expect(redactSecrets(text, ['sk-test'])).toBe(text);
  });
});
