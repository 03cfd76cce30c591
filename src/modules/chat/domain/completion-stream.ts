import type { ChatCompletion, ChatCompletionChunk } from '../../providers/domain/chat-completion';
import { carriesNativeContent, NativeMessageAssembler, nativeEvents } from './anthropic-passthrough';

type ToolCallDelta = NonNullable<ChatCompletionChunk['choices'][number]['delta']['tool_calls']>[number];
type ToolCall = NonNullable<ChatCompletion['choices'][number]['message']['tool_calls']>[number];
type TokenLogprob = NonNullable<ChatCompletion['choices'][number]['logprobs']>['content'] & object;

interface ChoiceState {
  content: string;
  refusal: string;
  toolCalls: Map<number, { id: string; name: string; arguments: string }>;
  finish: string | null;
  /** Log probabilities of the content tokens, when the upstream sent them (`logprobs: true`). */
  logprobs: TokenLogprob | null;
}

/**
 * Rebuilds the whole completion from a stream's chunks, for the cache and the usage log: content
 * and tool-call argument fragments are concatenated per choice and per tool-call index, and an
 * Anthropic passthrough's own message is rebuilt beside them.
 */
export class CompletionAssembler {
  private id = '';
  private created = 0;
  private model = '';
  private reportedUsage: ChatCompletion['usage'];
  private readonly choices = new Map<number, ChoiceState>();
  private readonly native = new NativeMessageAssembler();

  add(chunk: ChatCompletionChunk): void {
    if (chunk.anthropic) this.native.add(chunk.anthropic);
    this.id ||= chunk.id;
    this.created ||= chunk.created;
    this.model ||= chunk.model;
    if (chunk.usage) this.reportedUsage = chunk.usage;
    for (const choice of chunk.choices) {
      let state = this.choices.get(choice.index);
      if (!state) this.choices.set(choice.index, (state = { content: '', refusal: '', toolCalls: new Map(), finish: null, logprobs: null }));
      if (choice.delta.content) state.content += choice.delta.content;
      if (choice.delta.refusal) state.refusal += choice.delta.refusal;
      if (choice.logprobs?.content) (state.logprobs ??= []).push(...choice.logprobs.content);
      for (const call of choice.delta.tool_calls ?? []) addToolCall(state.toolCalls, call);
      if (choice.finish_reason) state.finish = choice.finish_reason;
    }
  }

  /** Whether any content (text, tool call, refusal, or an Anthropic passthrough's block) has arrived. */
  get hasContent(): boolean {
    return this.native.hasContent || [...this.choices.values()].some((state) => state.content !== '' || state.refusal !== '' || state.toolCalls.size > 0);
  }

  /** The usage reported so far, if any. */
  usage(): ChatCompletion['usage'] {
    return this.reportedUsage;
  }

  /** The completion, or null when the stream never finished a choice (nothing worth keeping). */
  result(): ChatCompletion | null {
    const choices = [...this.choices.values()];
    if (choices.length === 0 || choices.some((state) => state.finish === null)) return null;
    return this.snapshot();
  }

  /** What arrived so far as a completion; a choice that has not finished has `finish_reason: null`. */
  snapshot(): ChatCompletion {
    const choices = [...this.choices.entries()].sort(([a], [b]) => a - b);
    const native = this.native.message();
    return {
      id: this.id,
      object: 'chat.completion',
      created: this.created,
      model: this.model,
      choices: choices.map(([index, state]) => {
        const toolCalls: ToolCall[] = [...state.toolCalls.values()].map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
        return {
          index,
          message: { role: 'assistant', content: state.content || (toolCalls.length > 0 ? null : ''), refusal: state.refusal || null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
          finish_reason: state.finish as ChatCompletion['choices'][number]['finish_reason'],
          logprobs: state.logprobs && { content: state.logprobs, refusal: null },
        };
      }),
      ...(this.reportedUsage ? { usage: this.reportedUsage } : {}),
      ...(native && { anthropic: native }),
    };
  }
}

function addToolCall(calls: Map<number, { id: string; name: string; arguments: string }>, delta: ToolCallDelta): void {
  let call = calls.get(delta.index);
  if (!call) calls.set(delta.index, (call = { id: '', name: '', arguments: '' }));
  if (delta.id) call.id = delta.id;
  if (delta.function?.name) call.name += delta.function.name;
  if (delta.function?.arguments) call.arguments += delta.function.arguments;
}

/**
 * A whole completion as the chunks a stream would have carried (a cache hit asked as a stream):
 * role first, the content (with all its log probabilities), the refusal, the tool calls, the finish reason,
 * then usage if the client asked. An Anthropic passthrough's own events come first, each in a
 * chunk without choices, so the Messages codec knows them from the start; they end the message
 * only if its choices finished (a cut answer's do not).
 */
export function completionChunks(completion: ChatCompletion, includeUsage: boolean): ChatCompletionChunk[] {
  const base = { id: completion.id, object: 'chat.completion.chunk' as const, created: completion.created, model: completion.model };
  const finished = completion.choices.length > 0 && completion.choices.every((choice) => choice.finish_reason !== null);
  const chunks: ChatCompletionChunk[] = completion.anthropic ? nativeEvents(completion.anthropic, finished).map((event) => ({ ...base, choices: [], anthropic: event })) : [];
  for (const choice of completion.choices) {
    const { index, message } = choice;
    chunks.push({ ...base, choices: [{ index, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
    if (message.content) chunks.push({ ...base, choices: [{ index, delta: { content: message.content }, finish_reason: null, ...(choice.logprobs && { logprobs: choice.logprobs }) }] });
    if (message.refusal) chunks.push({ ...base, choices: [{ index, delta: { refusal: message.refusal }, finish_reason: null }] });
    (message.tool_calls ?? []).forEach((call, i) => {
      if (call.type !== 'function') return;
      const delta: ToolCallDelta = { index: i, id: call.id, type: 'function', function: { name: call.function.name, arguments: call.function.arguments } };
      chunks.push({ ...base, choices: [{ index, delta: { tool_calls: [delta] }, finish_reason: null }] });
    });
    chunks.push({ ...base, choices: [{ index, delta: {}, finish_reason: choice.finish_reason }] });
  }
  if (includeUsage && completion.usage) chunks.push({ ...base, choices: [], usage: completion.usage });
  return chunks;
}

/** Whether a chunk carries content the payer gets (text, tool call, refusal or reasoning, or an Anthropic passthrough's block): the moment a paid answer is broadcast. */
export function carriesContent(chunk: ChatCompletionChunk): boolean {
  if (chunk.anthropic && carriesNativeContent(chunk.anthropic)) return true;
  return chunk.choices.some(({ delta }) => {
    const reasoning = (delta as { reasoning_content?: unknown; reasoning?: unknown }).reasoning_content ?? (delta as { reasoning?: unknown }).reasoning;
    return Boolean(delta.content) || (delta.tool_calls?.length ?? 0) > 0 || Boolean(delta.refusal) || Boolean(reasoning);
  });
}
