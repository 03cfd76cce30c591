import type { Tool } from '@anthropic-ai/sdk/resources/messages';
import type { ChatRequest, OptionalParameter } from '../../../modules/providers/domain/chat-request';
import { isJsonObject } from '../shared/json-object';
import { parameterSupport, type ParameterSupport } from '../shared/parameter-support';

/** Anthropic's temperature runs 0..1 where OpenAI's runs 0..2: anything above is its most random. */
export const MAX_TEMPERATURE = 1;

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const JSON_TOOL_DEFAULT_NAME = 'json_output';

/** The smallest thinking budget Anthropic takes. */
export const MIN_THINKING_BUDGET = 1024;

/** Anthropic takes a top_p no lower than this while thinking. */
const MIN_THINKING_TOP_P = 0.95;

/**
 * How the Messages API takes this request's optional settings (docs/decisions.md, "Provider
 * capabilities"). Claude 4.5 models refuse temperature and top_p together: temperature, the usual
 * knob, wins. `user` becomes `metadata.user_id`; JSON output becomes a forced tool; blank stop
 * sequences are left out. A Messages request's thinking (thinkingBudget) is its reasoning_effort,
 * rewritten; while thinking Anthropic refuses any temperature and a top_p below 0.95, which are
 * dropped. Seed, penalties, logprobs, reasoning_effort from chat (thinking is only asked on the
 * Messages surface, whose budget the client chose within its billed cap), metadata and
 * service_tier (Anthropic's tiers have other values) have no equivalent.
 */
export function anthropicParameters(request: ChatRequest, maxTokens: number): ParameterSupport {
  const forwarded: OptionalParameter[] = [];
  const rewritten: OptionalParameter[] = ['user'];
  const stops = stopSequences(request);
  if (stops) (stops.length < [request.stop ?? []].flat().length ? rewritten : forwarded).push('stop');
  // It rides on tool_choice, which exists only with tools.
  if (request.tools?.length) forwarded.push('parallel_tool_calls');
  if (thinkingBudget(request, maxTokens) !== undefined) {
    rewritten.push('reasoning_effort');
    if (request.temperature === undefined && (request.top_p ?? 1) >= MIN_THINKING_TOP_P) forwarded.push('top_p');
  } else if (request.temperature === undefined) forwarded.push('top_p');
  else (request.temperature > MAX_TEMPERATURE ? rewritten : forwarded).push('temperature');
  if (jsonOutputTool(request)) rewritten.push('response_format');
  else if (request.response_format?.type === 'text') forwarded.push('response_format');
  return parameterSupport(forwarded, rewritten);
}

/**
 * The thinking budget sent with a Messages request's `thinking`: clamped below the forwarded
 * max_tokens, which Anthropic requires and which keeps the answer within the billed cap; none
 * when that leaves less than Anthropic's minimum, or when a tool is forced (Anthropic refuses
 * thinking then).
 */
export function thinkingBudget(request: ChatRequest, maxTokens: number): number | undefined {
  const asked = request.anthropic?.thinking?.budget_tokens;
  if (asked === undefined || request.tool_choice === 'required' || typeof request.tool_choice === 'object' || jsonOutputTool(request)) return undefined;
  const budget = Math.min(asked, maxTokens - 1);
  return budget >= MIN_THINKING_BUDGET ? budget : undefined;
}

/** Anthropic refuses a stop sequence of whitespace alone (OpenAI clients often send "\n"): those are left out. */
export function stopSequences(request: ChatRequest): string[] | undefined {
  const kept = [request.stop ?? []].flat().filter((sequence) => sequence.trim() !== '');
  return kept.length > 0 ? kept : undefined;
}

/**
 * JSON output as Anthropic's own docs advise it: one tool the model must call, whose input is the
 * answer (its schema the client's json_schema). The client's own tools need the tool channel, so
 * with them response_format is dropped instead.
 */
export function jsonOutputTool(request: ChatRequest): Tool | undefined {
  const format = request.response_format;
  if ((format?.type !== 'json_object' && format?.type !== 'json_schema') || request.tools?.length) return undefined;
  const { name, schema, description } = format.json_schema ?? {};
  return {
    name: typeof name === 'string' && TOOL_NAME.test(name) ? name : JSON_TOOL_DEFAULT_NAME,
    description: typeof description === 'string' ? description : 'Give the answer by calling this tool: its input is the answer, as a JSON object.',
    input_schema: { ...(isJsonObject(schema) ? schema : {}), type: 'object' },
  };
}
