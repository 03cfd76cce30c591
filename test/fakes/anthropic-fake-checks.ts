import { createHmac } from 'node:crypto';
import { isRecord } from './completion';

/*
 * What the real Messages API refuses in a request, as its documentation and its error messages
 * say, beyond the fields it requires: extra top-level fields, empty text blocks, thinking blocks
 * it did not sign, more than four cache_control breakpoints, and the rules thinking brings (its
 * budget, the sampling settings and forced tools it excludes, and a tool loop's assistant turn that
 * must start with its thinking). The fake signs its own thinking (an HMAC), so a thinking block
 * the gateway forwards verifies only if it came from a fake's answer unchanged.
 */

const FIELDS = new Set([
  'model',
  'messages',
  'max_tokens',
  'metadata',
  'service_tier',
  'stop_sequences',
  'stream',
  'system',
  'temperature',
  'thinking',
  'tool_choice',
  'tools',
  'top_k',
  'top_p',
  'container',
  'context_management',
  'mcp_servers',
]);
const SIGNING_KEY = 'fake-anthropic-thinking';
const MIN_BUDGET = 1024;
const MAX_BREAKPOINTS = 4;
const MIN_THINKING_TOP_P = 0.95;

/** The signature the fake gives a thinking text. */
export function thinkingSignature(thinking: string): string {
  return createHmac('sha256', SIGNING_KEY).update(`thinking:${thinking}`).digest('base64');
}

/** A redacted_thinking block's opaque data, verifiable by the fake. */
export function redactedData(seed: string): string {
  const nonce = Buffer.from(seed).toString('base64');
  return `${nonce}.${createHmac('sha256', SIGNING_KEY).update(`redacted:${nonce}`).digest('base64')}`;
}

function validRedacted(data: unknown): boolean {
  if (typeof data !== 'string') return false;
  const [nonce = '', mac] = data.split('.');
  return mac === createHmac('sha256', SIGNING_KEY).update(`redacted:${nonce}`).digest('base64');
}

/** The message the real API would refuse the body with, or undefined. */
export function anthropicRefusal(body: Record<string, unknown>, messages: Array<Record<string, unknown>>): string | undefined {
  for (const key of Object.keys(body)) if (!FIELDS.has(key)) return `${key}: Extra inputs are not permitted`;
  return blockRefusal(body, messages) ?? thinkingRefusal(body, messages);
}

function blockRefusal(body: Record<string, unknown>, messages: Array<Record<string, unknown>>): string | undefined {
  let breakpoints = 0;
  const count = (block: Record<string, unknown>): string | undefined => {
    if (block.cache_control == null) return undefined;
    breakpoints += 1;
    return isRecord(block.cache_control) && block.cache_control.type === 'ephemeral' ? undefined : "cache_control.type: Input should be 'ephemeral'";
  };
  for (const block of [...blocksOf(body.system), ...(Array.isArray(body.tools) ? body.tools.filter(isRecord) : [])]) {
    const refused = count(block);
    if (refused) return refused;
  }
  for (const [index, message] of messages.entries()) {
    for (const block of blocksOf(message.content)) {
      const where = `messages.${index}.content`;
      if (block.type === 'text' && block.text === '') return `${where}: text content blocks must be non-empty`;
      if (block.type === 'thinking' && (typeof block.thinking !== 'string' || block.signature !== thinkingSignature(block.thinking))) return `${where}: Invalid \`signature\` in \`thinking\` block`;
      if (block.type === 'redacted_thinking' && !validRedacted(block.data)) return `${where}: Invalid \`data\` in \`redacted_thinking\` block`;
      for (const inner of [block, ...(block.type === 'tool_result' ? blocksOf(block.content) : [])]) {
        const refused = count(inner);
        if (refused) return refused;
      }
    }
  }
  return breakpoints > MAX_BREAKPOINTS ? `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.` : undefined;
}

function thinkingRefusal(body: Record<string, unknown>, messages: Array<Record<string, unknown>>): string | undefined {
  const { thinking } = body;
  if (!isRecord(thinking) || thinking.type !== 'enabled') return undefined;
  const budget = thinking.budget_tokens;
  if (typeof budget !== 'number' || budget < MIN_BUDGET) return `thinking.enabled.budget_tokens: Input should be greater than or equal to ${MIN_BUDGET}`;
  if (typeof body.max_tokens === 'number' && budget >= body.max_tokens) return '`max_tokens` must be greater than `thinking.budget_tokens`';
  if (body.temperature !== undefined && body.temperature !== 1) return '`temperature` may only be set to 1 when thinking is enabled';
  if (body.top_k !== undefined) return '`top_k` must be unset when thinking is enabled';
  if (typeof body.top_p === 'number' && body.top_p < MIN_THINKING_TOP_P) return `\`top_p\` must be greater than or equal to ${MIN_THINKING_TOP_P} or unset when thinking is enabled`;
  if (isRecord(body.tool_choice) && (body.tool_choice.type === 'any' || body.tool_choice.type === 'tool')) return 'Thinking may not be enabled when tool_choice forces tool use.';
  const last = messages.length - 1;
  const loop = last > 0 && messages[last].role === 'user' && blocksOf(messages[last].content).some((block) => block.type === 'tool_result');
  const turn = blocksOf(messages[last - 1]?.content);
  if (loop && turn.some((block) => block.type === 'tool_use') && turn[0]?.type !== 'thinking' && turn[0]?.type !== 'redacted_thinking') {
    return `messages.${last - 1}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(turn[0]?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`;
  }
  return undefined;
}

function blocksOf(content: unknown): Array<Record<string, unknown>> {
  return Array.isArray(content) ? content.filter(isRecord) : [];
}
