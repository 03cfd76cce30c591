import type { ChatCompletionMessageFunctionToolCall } from 'openai/resources/chat/completions/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import type { ChatCompletion, ChatCompletionChunk, ChunkDelta, CompletionChoice } from '../../../modules/providers/domain/chat-completion';

/**
 * OpenAI's completion and chunk shapes, built from what another provider answered: the one place
 * the Anthropic and Gemini adapters dress their translations.
 */
export type FinishReason = CompletionChoice['finish_reason'];
export type OpenAiToolCall = ChatCompletionMessageFunctionToolCall;
export type ToolCallDelta = NonNullable<ChunkDelta['tool_calls']>[number];
export type { CompletionUsage };

/** A whole answer, translated. */
export interface AssistantAnswer {
  text: string;
  toolCalls: OpenAiToolCall[];
  finishReason: FinishReason;
  usage?: CompletionUsage;
}

export function completionUsage(promptTokens: number, completionTokens: number, totalTokens = promptTokens + completionTokens): CompletionUsage {
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: totalTokens };
}

export function chatCompletion(id: string, model: string, answer: AssistantAnswer): ChatCompletion {
  const { text, toolCalls, finishReason, usage } = answer;
  return {
    id,
    object: 'chat.completion',
    created: nowSeconds(),
    model,
    choices: [
      {
        index: 0,
        // Like OpenAI: content is null in a turn of tool calls with nothing said.
        message: { role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : text, refusal: null, ...(toolCalls.length > 0 && { tool_calls: toolCalls }) },
        finish_reason: finishReason,
        logprobs: null,
      },
    ],
    ...(usage && { usage }),
  };
}

/** The chunks of one streamed answer: same id, model and creation time throughout. */
export class ChunkFactory {
  private readonly created = nowSeconds();

  constructor(
    private readonly id: string,
    private readonly model: string,
  ) {}

  /** The first chunk, as OpenAI sends it. */
  role(): ChatCompletionChunk {
    return this.chunk({ role: 'assistant', content: '' });
  }

  content(text: string): ChatCompletionChunk {
    return this.chunk({ content: text });
  }

  toolCall(delta: ToolCallDelta): ChatCompletionChunk {
    return this.chunk({ tool_calls: [delta] });
  }

  finish(reason: FinishReason): ChatCompletionChunk {
    return this.chunk({}, reason);
  }

  /** A chunk with nothing for OpenAI's shape, carrying what only a passthrough reads. */
  empty(): ChatCompletionChunk {
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [] };
  }

  /** The last chunk, as OpenAI sends it with `include_usage`: no choices. */
  usage(usage: CompletionUsage): ChatCompletionChunk {
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [], usage };
  }

  private chunk(delta: ChunkDelta, finishReason: FinishReason | null = null): ChatCompletionChunk {
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.model, choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }] };
  }
}

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}
