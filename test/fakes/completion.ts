import type { FakeToolCall, FinishReason, ReplyShape } from './behaviour';
import type { ChatRequest } from './wire-format';

export interface CompletionToolCall extends FakeToolCall {
  /** Unique within the fake; each format adds its provider's prefix. */
  id: string;
  argumentsJson: string;
  /** `argumentsJson` in the pieces a stream sends it in. */
  argumentFragments: string[];
}

/** A reply in provider-neutral terms, rendered by each wire format as JSON or as stream events. */
export interface Completion {
  id: string;
  model: string;
  created: number;
  text: string;
  /** `text` split the way a stream sends it: one word, with its trailing whitespace, per piece. */
  textPieces: string[];
  toolCalls: CompletionToolCall[];
  finishReason: FinishReason;
  usage?: { promptTokens: number; completionTokens: number };
  /** The request asked for log probabilities (OpenAI's wire only). */
  logprobs: boolean;
  /** Leave out what only OpenAI itself always sends (ReplyShape.bare). */
  bare: boolean;
  /** The thinking the reply starts with, when the request asked for it (Anthropic's wire only), split as a stream sends it. */
  thinking?: { text: string; pieces: string[] };
  redactedThinking: boolean;
  pauseTurn: boolean;
}

const ECHOED_USER_TEXT_LENGTH = 40;

/** Token counts are made up but deterministic: prompt = characters / 4, completion = words (+ arguments / 4). */
export function buildCompletion(provider: string, sequence: number, request: ChatRequest, shape: ReplyShape): Completion {
  const id = `fake${sequence}`;
  const toolCalls = (shape.toolCalls ?? []).map((call, index): CompletionToolCall => {
    const argumentsJson = JSON.stringify(call.arguments);
    return { ...call, id: `${id}_${index}`, argumentsJson, argumentFragments: argumentsJson.match(/.{1,8}/gs) ?? [] };
  });
  const text = shape.text ?? (toolCalls.length > 0 ? '' : `fake ${provider} reply to: ${request.lastUserText.slice(0, ECHOED_USER_TEXT_LENGTH)}`);
  const thinking = request.thinkingWanted ? (shape.thinking ?? `fake thinking about: ${request.lastUserText.slice(0, ECHOED_USER_TEXT_LENGTH)}`) : undefined;
  const promptCharacters = request.promptTexts.reduce((sum, part) => sum + part.length, 0);
  // Split on single white-space characters: `\S+` over a long run can overflow V8's backtracking stack once it compiles patterns unoptimized (docs/decisions.md, "Bounded runs in text scans").
  const words = (said: string): number => said.split(/\s/).filter((word) => word !== '').length;
  const completionTokens = words(text) + words(thinking ?? '') + toolCalls.reduce((sum, call) => sum + Math.ceil(call.argumentsJson.length / 4), 0);
  return {
    id,
    model: request.model,
    created: Math.floor(Date.now() / 1000),
    text,
    textPieces: pieces(text),
    toolCalls,
    finishReason: shape.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    usage: shape.usage === false || !request.usageWanted ? undefined : { promptTokens: Math.ceil(promptCharacters / 4), completionTokens },
    logprobs: request.logprobsWanted === true,
    bare: shape.bare === true,
    thinking: thinking === undefined ? undefined : { text: thinking, pieces: pieces(thinking) },
    redactedThinking: request.thinkingWanted === true && shape.redactedThinking === true,
    pauseTurn: shape.pauseTurn === true,
  };
}

/** One word, with its trailing whitespace, per piece. */
function pieces(text: string): string[] {
  return text.split(/(?<=\s)(?=\S)/).filter((piece) => piece !== '');
}

/** The texts inside message content in any of the three formats: strings, `{text}` parts, nested `content`. */
export function textsOf(content: unknown): string[] {
  if (typeof content === 'string') return [content];
  if (Array.isArray(content)) return content.flatMap(textsOf);
  if (!isRecord(content)) return [];
  if (typeof content.text === 'string') return [content.text];
  return textsOf(content.content);
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
