import type { OptionalParameter } from '../../../modules/providers/domain/chat-request';
import type { ProviderName } from '../../../modules/providers/domain/provider-name';
import type { UpstreamCall } from '../../../modules/providers/ports/llm-provider';
import { parameterSupport, type ParameterSupport, type SentSettings } from '../shared/parameter-support';

/** How an OpenAI-compatible API departs from OpenAI's own (docs/decisions.md, "Provider capabilities"). */
export interface OpenAiDialect {
  /** OpenAI's current models take `max_completion_tokens`; the compatible APIs still read `max_tokens`. */
  maxTokensField: 'max_completion_tokens' | 'max_tokens';
  /** Whether the API knows the `developer` role; where it does not, it becomes `system`. */
  developerRole: boolean;
  /** DeepSeek reads a message's content only as a string (`invalid type: sequence`): text parts are joined. */
  contentAsString: boolean;
  /** The optional settings the API takes for its ordinary models and for the catalog's reasoning models. */
  parameters: { standard: ParameterSupport; reasoning: ParameterSupport };
  /** Values of taken settings that the API refuses, changed or removed in place (a change is listed as a rewrite). */
  values?: (sent: SentSettings, call: UpstreamCall) => void;
}

/** What every compatible API reads. */
const SHARED: readonly OptionalParameter[] = ['temperature', 'top_p', 'stop', 'seed', 'presence_penalty', 'frequency_penalty', 'response_format', 'parallel_tool_calls'];
/** Settings OpenAI's reasoning models refuse with `unsupported_parameter` (`stop` too, on o3 and o4-mini). */
const SAMPLING: readonly OptionalParameter[] = ['temperature', 'top_p', 'presence_penalty', 'frequency_penalty', 'logprobs', 'top_logprobs', 'stop'];
const LOGPROBS: readonly OptionalParameter[] = ['logprobs', 'top_logprobs'];

const without = (list: readonly OptionalParameter[], left: readonly OptionalParameter[]) => list.filter((parameter) => !left.includes(parameter));

/**
 * `metadata` goes nowhere: OpenAI keeps it only with `store: true`, which would keep clients'
 * conversations in the operator's account, and no other upstream has the field.
 */
export const OPENAI_COMPATIBLE_DIALECTS: Readonly<Record<Exclude<ProviderName, 'anthropic' | 'google'>, OpenAiDialect>> = {
  openai: {
    maxTokensField: 'max_completion_tokens',
    developerRole: true,
    contentAsString: false,
    parameters: {
      standard: parameterSupport([...SHARED, ...LOGPROBS, 'user', 'service_tier']),
      reasoning: parameterSupport([...without(SHARED, SAMPLING), 'reasoning_effort', 'user', 'service_tier']),
    },
    values: (sent, call) => {
      // o-series models take low, medium and high only: the lower efforts become their lowest.
      if (/^o\d/.test(call.upstreamModel) && (sent.reasoning_effort === 'none' || sent.reasoning_effort === 'minimal')) sent.reasoning_effort = 'low';
      // Flex processing exists for the reasoning models only.
      if (!call.reasoning && sent.service_tier === 'flex') delete sent.service_tier;
    },
  },
  // xAI's reasoning models refuse penalties and stop; only grok-3-mini, not in the catalog, takes reasoning_effort.
  xai: {
    maxTokensField: 'max_tokens',
    developerRole: false,
    contentAsString: false,
    parameters: {
      standard: parameterSupport([...SHARED, ...LOGPROBS, 'user']),
      reasoning: parameterSupport([...without(SHARED, ['presence_penalty', 'frequency_penalty', 'stop']), ...LOGPROBS, 'user']),
    },
  },
  // deepseek-reasoner accepts the sampling settings (without effect) but refuses logprobs.
  deepseek: {
    maxTokensField: 'max_tokens',
    developerRole: false,
    contentAsString: true,
    parameters: { standard: parameterSupport([...SHARED, ...LOGPROBS]), reasoning: parameterSupport(SHARED) },
    // DeepSeek's JSON output is json_object alone; a schema still asks for JSON.
    values: (sent) => {
      if ((sent.response_format as { type?: string } | undefined)?.type === 'json_schema') sent.response_format = { type: 'json_object' };
    },
  },
  nvidia: {
    maxTokensField: 'max_tokens',
    developerRole: false,
    contentAsString: false,
    parameters: { standard: parameterSupport([...SHARED, ...LOGPROBS]), reasoning: parameterSupport([...SHARED, ...LOGPROBS]) },
  },
};
