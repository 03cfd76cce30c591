import type { Tool } from '@anthropic-ai/sdk/resources/messages';
import type { ChatRequest, OptionalParameter } from '../../../modules/providers/domain/chat-request';
import { isJsonObject } from '../shared/json-object';
import { parameterSupport, type ParameterSupport } from '../shared/parameter-support';

/** Anthropic's temperature runs 0..1 where OpenAI's runs 0..2: anything above is its most random. */
export const MAX_TEMPERATURE = 1;

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const JSON_TOOL_DEFAULT_NAME = 'json_output';

/**
 * How the Messages API takes this request's optional settings (docs/decisions.md, "Provider
 * capabilities"). Claude 4.5 models refuse temperature and top_p together: temperature, the usual
 * knob, wins. `user` becomes `metadata.user_id`; JSON output becomes a forced tool; blank stop
 * sequences are left out. Seed,
 * penalties, logprobs, reasoning_effort (thinking would change the billing cap), metadata and
 * service_tier (Anthropic's tiers have other values) have no equivalent.
 */
export function anthropicParameters(request: ChatRequest): ParameterSupport {
  const forwarded: OptionalParameter[] = [];
  const rewritten: OptionalParameter[] = ['user'];
  const stops = stopSequences(request);
  if (stops) (stops.length < [request.stop ?? []].flat().length ? rewritten : forwarded).push('stop');
  // It rides on tool_choice, which exists only with tools.
  if (request.tools?.length) forwarded.push('parallel_tool_calls');
  if (request.temperature === undefined) forwarded.push('top_p');
  else (request.temperature > MAX_TEMPERATURE ? rewritten : forwarded).push('temperature');
  if (jsonOutputTool(request)) rewritten.push('response_format');
  else if (request.response_format?.type === 'text') forwarded.push('response_format');
  return parameterSupport(forwarded, rewritten);
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
