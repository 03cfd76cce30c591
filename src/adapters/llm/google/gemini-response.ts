import { randomBytes } from 'node:crypto';
import type { GenerateContentResponse, GenerateContentResponseUsageMetadata, Part } from '@google/genai';
import type { ChatCompletion } from '../../../modules/providers/domain/chat-completion';
import { UpstreamError } from '../../../modules/providers/domain/upstream-error';
import { isJsonObject } from '../shared/json-object';
import { chatCompletion, completionUsage, type CompletionUsage, type FinishReason, type OpenAiToolCall } from '../shared/openai-shapes';

/** A generateContent answer or stream chunk as JSON: the SDK's response class without its getters. */
export type GeminiResponse = Pick<GenerateContentResponse, 'candidates' | 'promptFeedback' | 'usageMetadata' | 'modelVersion' | 'responseId'>;

/** Every reason Gemini names for withholding content; the others (STOP, OTHER, ...) read as a plain stop. */
const FINISH_REASONS: Partial<Record<string, FinishReason>> = {
  MAX_TOKENS: 'length',
  SAFETY: 'content_filter',
  RECITATION: 'content_filter',
  BLOCKLIST: 'content_filter',
  PROHIBITED_CONTENT: 'content_filter',
  SPII: 'content_filter',
  IMAGE_SAFETY: 'content_filter',
  IMAGE_PROHIBITED_CONTENT: 'content_filter',
  IMAGE_RECITATION: 'content_filter',
};

/** Error statuses that say "not now", like the HTTP statuses UpstreamHttp treats as unavailable. */
const TRANSIENT_STATUSES = new Set(['RESOURCE_EXHAUSTED', 'UNAVAILABLE', 'INTERNAL', 'DEADLINE_EXCEEDED']);

/** Checks a body or stream chunk before it is read; an `error` object in its place (Gemini's way to fail mid-stream) throws. */
export function geminiResponse(body: unknown): GeminiResponse {
  if (isJsonObject(body) && isJsonObject(body.error)) {
    const { status, code } = body.error;
    const kind = typeof status === 'string' && TRANSIENT_STATUSES.has(status) ? 'unavailable' : 'bad_response';
    throw new UpstreamError('google', kind, `google answered an error: ${String(status ?? code)}`);
  }
  if (!isJsonObject(body) || (body.candidates !== undefined && !(Array.isArray(body.candidates) && body.candidates.every(isJsonObject)))) {
    throw new UpstreamError('google', 'bad_response', 'google sent a body that is not a GenerateContentResponse');
  }
  return body as GeminiResponse;
}

/** Gemini names no completion; its response id, when it gives one, can be traced in its logs. */
export function completionId(response: GeminiResponse): string {
  return response.responseId ?? `chatcmpl-${randomBytes(12).toString('hex')}`;
}

/**
 * The first candidate's texts (thought summaries left out: they are not the answer) and function
 * calls. Gemini's calls carry no id to rely on, so each gets a fresh one: a reused `call_0` would
 * collide across turns in clients that key tool results by id.
 */
export function answerParts(response: GeminiResponse): { text: string; toolCalls: OpenAiToolCall[] } {
  const parts: unknown = response.candidates?.[0]?.content?.parts;
  let text = '';
  const toolCalls: OpenAiToolCall[] = [];
  for (const part of Array.isArray(parts) ? (parts.filter(isJsonObject) as Part[]) : []) {
    if (typeof part.text === 'string' && !part.thought) text += part.text;
    if (part.functionCall) {
      const { name = '', args = {} } = part.functionCall;
      toolCalls.push({ id: `call_${randomBytes(12).toString('hex')}`, type: 'function', function: { name, arguments: JSON.stringify(args) } });
    }
  }
  return { text, toolCalls };
}

/** Why the answer ended, or undefined while it goes on. Gemini ends a turn of function calls with STOP like any other. */
export function finishReason(response: GeminiResponse, calledFunctions: boolean): FinishReason | undefined {
  const reason = response.candidates?.[0]?.finishReason;
  if (reason === undefined) return response.promptFeedback?.blockReason ? 'content_filter' : undefined;
  const mapped = FINISH_REASONS[reason] ?? 'stop';
  return mapped === 'stop' && calledFunctions ? 'tool_calls' : mapped;
}

/** Thinking tokens are billed as output, so they are completion tokens. */
export function openAiUsage(usage: GenerateContentResponseUsageMetadata): CompletionUsage {
  return completionUsage(usage.promptTokenCount ?? 0, (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0), usage.totalTokenCount);
}

export function geminiCompletion(response: GeminiResponse, upstreamModel: string): ChatCompletion {
  const { text, toolCalls } = answerParts(response);
  // Without any candidate, the prompt itself was blocked.
  const reason = finishReason(response, toolCalls.length > 0) ?? (response.candidates?.length ? 'stop' : 'content_filter');
  const usage = response.usageMetadata && openAiUsage(response.usageMetadata);
  return chatCompletion(completionId(response), response.modelVersion ?? upstreamModel, { text, toolCalls, finishReason: reason, usage });
}
