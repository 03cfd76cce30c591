const REDACTED = '[redacted]';

/**
 * Key-shaped tokens providers echo back: OpenAI, Anthropic (`sk-ant-`), xAI, NVIDIA and Groq-style
 * prefixes, Google API keys, bearer credentials, and the values of JSON fields named like a secret.
 * Each pattern is one literal prefix followed by one character class run: linear in the text.
 */
const KEY_SHAPES: readonly RegExp[] = [
  /\b(?:sk|pk|rk|xai|nvapi|gsk)-[A-Za-z0-9_-]{8,}/g,
  /\bAIza[A-Za-z0-9_-]{20,}/g,
  /\bBearer [^\s"',]+/gi,
  /("(?:api[_-]?key|x-api-key|x-goog-api-key|authorization|token|secret|password)" ?: ?")[^"]*/gi,
];

/**
 * `text` without the credentials the gateway sent (`known`, replaced wherever they appear) and
 * without anything shaped like a key, for logs (docs/decisions.md, "Upstream failures in the log").
 */
export function redactSecrets(text: string, known: readonly string[]): string {
  let redacted = text;
  for (const secret of known) if (secret.length >= 4) redacted = redacted.split(secret).join(REDACTED);
  for (const shape of KEY_SHAPES) redacted = redacted.replace(shape, (_match, field?: string) => (typeof field === 'string' ? `${field}${REDACTED}` : REDACTED));
  return redacted;
}
