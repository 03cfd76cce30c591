import type { ChatCompletionChunk } from '../../providers/domain/chat-completion';
import { carriesContent, CompletionAssembler, completionChunks } from './completion-stream';

const chunk = (delta: Record<string, unknown>, finish: string | null = null): ChatCompletionChunk =>
  ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] }) as ChatCompletionChunk;

describe('carriesContent: the moment a paid answer is broadcast', () => {
  it.each([
    ['text', { content: 'Hi' }],
    ['a tool call', { tool_calls: [{ index: 0, id: 't', type: 'function', function: { name: 'f', arguments: '' } }] }],
    ['a refusal', { refusal: 'no' }],
    ['reasoning (DeepSeek)', { reasoning_content: 'thinking' }],
    ['reasoning (OpenRouter-style)', { reasoning: 'thinking' }],
  ])('counts %s', (_name, delta) => {
    expect(carriesContent(chunk(delta))).toBe(true);
  });

  it.each([
    ['the role alone', { role: 'assistant', content: '' }],
    ['an empty delta with the finish reason', {}],
  ])('does not count %s', (_name, delta) => {
    expect(carriesContent(chunk(delta, 'stop'))).toBe(false);
  });

  it('does not count a usage-only chunk', () => {
    expect(carriesContent({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })).toBe(false);
  });
});

describe('CompletionAssembler snapshot: what a cut answer delivers', () => {
  it('has the content so far and finish_reason null while the choice has not finished; result() stays null', () => {
    const assembler = new CompletionAssembler();
    assembler.add(chunk({ role: 'assistant', content: '' }));
    expect(assembler.hasContent).toBe(false);
    assembler.add(chunk({ content: 'Hello, ' }));
    assembler.add(chunk({ content: 'wor' }));
    expect(assembler.hasContent).toBe(true);
    expect(assembler.result()).toBeNull();
    expect(assembler.snapshot().choices[0]).toMatchObject({ message: { role: 'assistant', content: 'Hello, wor' }, finish_reason: null });
  });
});

describe('log probabilities through the stream', () => {
  const token = (text: string) => ({ token: text, logprob: -0.5, bytes: [...Buffer.from(text)], top_logprobs: [] });
  const withLogprobs = (content: string, finish: string | null = null): ChatCompletionChunk =>
    ({
      id: 'c1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [{ index: 0, delta: { content }, logprobs: { content: [token(content)], refusal: null }, finish_reason: finish }],
    }) as ChatCompletionChunk;

  it('are gathered into the whole completion and given back whole when it is replayed as chunks', () => {
    const assembler = new CompletionAssembler();
    assembler.add(withLogprobs('Hel'));
    assembler.add(withLogprobs('lo', 'stop'));

    const completion = assembler.result();
    expect(completion?.choices[0].logprobs).toEqual({ content: [token('Hel'), token('lo')], refusal: null });
    const replayed = completionChunks(completion!, false).flatMap((chunk) => chunk.choices.map((choice) => choice.logprobs?.content ?? []));
    expect(replayed.flat()).toEqual([token('Hel'), token('lo')]);
  });

  it('are null when the upstream sent none', () => {
    const assembler = new CompletionAssembler();
    assembler.add(chunk({ content: 'Hi' }, 'stop'));

    expect(assembler.result()?.choices[0].logprobs).toBeNull();
  });
});

describe('a refusal through the stream', () => {
  it('is gathered into the whole completion, counts as content, and is given back when it is replayed as chunks', () => {
    const assembler = new CompletionAssembler();
    assembler.add(chunk({ role: 'assistant', content: '' }));
    assembler.add(chunk({ refusal: "I can't " }));
    expect(assembler.hasContent).toBe(true);
    assembler.add(chunk({ refusal: 'help with that.' }, 'stop'));

    const completion = assembler.result();
    expect(completion?.choices[0].message).toMatchObject({ content: '', refusal: "I can't help with that." });
    expect(completionChunks(completion!, false).flatMap((replayed) => replayed.choices.map((choice) => choice.delta.refusal ?? ''))).toContain("I can't help with that.");
  });

  it('is null when the upstream sent none', () => {
    const assembler = new CompletionAssembler();
    assembler.add(chunk({ content: 'Hi' }, 'stop'));

    expect(assembler.result()?.choices[0].message.refusal).toBeNull();
  });
});
