import type { ThinkingConfig } from '@google/genai';
import type { ReasoningEffort } from '../../../modules/providers/domain/chat-request';
import type { UpstreamCall } from '../../../modules/providers/ports/llm-provider';
import { parameterSupport, type ParameterSupport } from '../shared/parameter-support';

const SETTINGS = parameterSupport(['temperature', 'top_p', 'stop', 'seed', 'presence_penalty', 'frequency_penalty', 'response_format']);
const REASONING_SETTINGS = parameterSupport([...SETTINGS.forwarded], ['reasoning_effort']);

/**
 * How generateContent takes the optional settings (docs/decisions.md, "Provider capabilities"):
 * the sampling ones under generationConfig; reasoning_effort as a thinking level, for the
 * catalog's reasoning models only; parallel_tool_calls, logprobs (a different response shape),
 * user, metadata and service_tier have no equivalent.
 */
export function geminiParameters(call: UpstreamCall): ParameterSupport {
  return call.reasoning ? REASONING_SETTINGS : SETTINGS;
}

/** The two levels every Gemini 3 model takes: OpenAI's lower efforts read as LOW, the rest as HIGH. */
export function thinkingConfig(call: UpstreamCall): Pick<ThinkingConfig, 'thinkingLevel'> | undefined {
  const effort: ReasoningEffort | undefined = call.request.reasoning_effort;
  if (effort === undefined || !geminiParameters(call).rewritten.has('reasoning_effort')) return undefined;
  return { thinkingLevel: (effort === 'medium' || effort === 'high' ? 'HIGH' : 'LOW') as ThinkingConfig['thinkingLevel'] };
}
