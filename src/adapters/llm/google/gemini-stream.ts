import type { GenerateContentResponseUsageMetadata } from '@google/genai';
import type { EventSourceMessage } from 'eventsource-parser';
import type { ChatCompletionChunk } from '../../../modules/providers/domain/chat-completion';
import { UpstreamError } from '../../../modules/providers/domain/upstream-error';
import { parseEventJson } from '../shared/event-json';
import { ChunkFactory } from '../shared/openai-shapes';
import { answerParts, completionId, finishReason, geminiResponse, openAiUsage } from './gemini-response';

/**
 * streamGenerateContent's chunks (each a partial GenerateContentResponse) as OpenAI chunks: the
 * role first, each chunk's text, its function calls as whole tool calls, the finish reason, and
 * the last usage reported. Gemini sends no terminator: a stream is whole only once a chunk
 * carried a finishReason (or a prompt block), else it was cut.
 */
export async function* geminiChunks(events: AsyncIterable<EventSourceMessage>, upstreamModel: string): AsyncGenerator<ChatCompletionChunk> {
  let factory: ChunkFactory | undefined;
  let toolCallCount = 0;
  let finished = false;
  let usage: GenerateContentResponseUsageMetadata | undefined;
  for await (const event of events) {
    const response = geminiResponse(parseEventJson('google', event.data));
    if (!factory) {
      factory = new ChunkFactory(completionId(response), response.modelVersion ?? upstreamModel);
      yield factory.role();
    }
    const { text, toolCalls } = answerParts(response);
    if (text !== '') yield factory.content(text);
    for (const call of toolCalls) yield factory.toolCall({ index: toolCallCount++, ...call });
    // Usage counts grow chunk by chunk; the last one holds the totals.
    usage = response.usageMetadata ?? usage;
    const reason = finishReason(response, toolCallCount > 0);
    if (reason !== undefined && !finished) {
      finished = true;
      yield factory.finish(reason);
    }
  }
  if (!factory || !finished) throw new UpstreamError('google', 'unavailable', 'google stream ended without a finishReason');
  if (usage) yield factory.usage(openAiUsage(usage));
}
