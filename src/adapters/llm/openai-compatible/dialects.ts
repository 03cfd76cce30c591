import type { OptionalParameter } from '../../../modules/chat/domain/chat-request';
import type { ProviderName } from '../../../modules/providers/domain/provider-name';
import { parameterSupport, type ParameterSupport } from '../parameter-support';

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
}

/** What every compatible API reads. */
const SHARED: readonly OptionalParameter[] = ['temperature', 'top_p', 'stop', 'seed', 'presence_penalty', 'frequency_penalty', 'response_format', 'parallel_tool_calls'];
/** Sampling settings OpenAI's reasoning models refuse with `unsupported_parameter`. */
const SAMPLING: readonly OptionalParameter[] = ['temperature', 'top_p', 'presence_penalty', 'frequency_penalty', 'logprobs', 'top_logprobs'];
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
  },
  nvidia: {
    maxTokensField: 'max_tokens',
    developerRole: false,
    contentAsString: false,
    parameters: { standard: parameterSupport([...SHARED, ...LOGPROBS]), reasoning: parameterSupport([...SHARED, ...LOGPROBS]) },
  },
};
