import { anthropicParameters } from '../anthropic/anthropic-parameters';
import { anthropicRequestBody } from '../anthropic/anthropic-request';
import { OPENAI_COMPATIBLE_DIALECTS } from '../openai-compatible/dialects';
import { openAiAdjustments, openAiRequestBody } from '../openai-compatible/openai-request';
import { isSent } from './parameter-support';
import type { ChatRequest } from '../../../modules/providers/domain/chat-request';
import type { UpstreamCall } from '../../../modules/providers/ports/llm-provider';

/**
 * Settings a client may validly send that an upstream refuses with a 400, which would become a
 * non-retryable 502: each is dropped or translated instead (docs/decisions.md, "Provider
 * capabilities").
 */

function call(upstreamModel: string, request: Partial<ChatRequest>, reasoning: boolean): UpstreamCall {
  return {
    upstreamModel,
    request: { model: 'x', messages: [{ role: 'user', content: 'Hello' }], ...request },
    maxTokens: 256,
    stream: false,
    reasoning,
  };
}

describe('Anthropic: whitespace-only stop sequences', () => {
  // The Messages API answers 400 "stop_sequences: each stop sequence must contain non-whitespace";
  // OpenAI clients send stop: "\n" routinely.
  it.each([['\n'], [['\n\n', 'END']], [[' ', '\t']]])('stop %j never reaches Anthropic as a whitespace-only sequence', (stop) => {
    const body = anthropicRequestBody(call('claude-haiku-4-5', { stop: stop as string | string[] }, false));
    for (const sequence of body.stop_sequences ?? []) expect(sequence.trim()).not.toBe('');
  });
});

describe('OpenAI reasoning models: stop', () => {
  // OpenAI's reference for `stop`: "Not supported with latest reasoning models o3 and o4-mini"
  // (400 unsupported_parameter).
  it.each([['o3'], ['o4-mini'], ['gpt-5.2']])('%s is sent no stop', (model) => {
    const body = openAiRequestBody(call(model, { stop: ['END'] }, true), OPENAI_COMPATIBLE_DIALECTS.openai);
    expect(body).not.toHaveProperty('stop');
  });
});

describe('OpenAI reasoning models: reasoning_effort values the model lacks', () => {
  // o3 and o4-mini take low, medium and high only; `none` and `minimal` are GPT-5-family values
  // (400 "Unsupported value: 'reasoning_effort' does not support 'minimal' with this model").
  it.each([['none'], ['minimal']])('o3 is never sent reasoning_effort %s', (effort) => {
    const body = openAiRequestBody(call('o3', { reasoning_effort: effort as ChatRequest['reasoning_effort'] }, true), OPENAI_COMPATIBLE_DIALECTS.openai);
    expect(['low', 'medium', 'high', undefined]).toContain(body.reasoning_effort);
  });
});

describe('DeepSeek: response_format json_schema', () => {
  // DeepSeek's API takes response_format `text` or `json_object` only; `json_schema` is a 400
  // ("This response_format type is unavailable now").
  it('deepseek-chat is never sent a json_schema response_format', () => {
    const format = { type: 'json_schema', json_schema: { name: 'a', schema: { type: 'object' } } } as ChatRequest['response_format'];
    const body = openAiRequestBody(call('deepseek-chat', { response_format: format }, false), OPENAI_COMPATIBLE_DIALECTS.deepseek);
    expect((body.response_format as { type?: string } | undefined)?.type).not.toBe('json_schema');
  });
});

describe('OpenAI-compatible: tool settings without tools', () => {
  // OpenAI answers 400 "'tool_choice' is only allowed when 'tools' are specified" (and the same for
  // parallel_tool_calls). The schema accepts both without tools.
  it.each([['openai'], ['deepseek'], ['xai'], ['nvidia']] as const)('%s is sent neither tool_choice nor parallel_tool_calls when the request has no tools', (dialect) => {
    const body = openAiRequestBody(call('m', { tool_choice: 'none', parallel_tool_calls: false }, false), OPENAI_COMPATIBLE_DIALECTS[dialect]);
    expect(body).not.toHaveProperty('tool_choice');
    expect(body).not.toHaveProperty('parallel_tool_calls');
  });
});

describe('what is changed is listed in the debug header', () => {
  it('a blank stop sequence left out for Anthropic is a rewrite of stop; all of them blank, a drop', () => {
    expect(anthropicParameters(call('claude', { stop: ['\n', 'END'] }, false).request, 1000).rewritten.has('stop')).toBe(true);
    expect(isSent(anthropicParameters(call('claude', { stop: '\n' }, false).request, 1000), 'stop')).toBe(false);
  });

  it('OpenAI: a lower effort raised for o3 is a rewrite; tool_choice without tools a drop', () => {
    expect(openAiAdjustments(call('o3', { reasoning_effort: 'minimal', tool_choice: 'auto' }, true), OPENAI_COMPATIBLE_DIALECTS.openai)).toEqual({
      dropped: ['tool_choice'],
      rewritten: ['reasoning_effort'],
    });
  });

  it('DeepSeek: json_schema asked as json_object is a rewrite of response_format', () => {
    const format = { type: 'json_schema', json_schema: { name: 'a', schema: { type: 'object' } } } as ChatRequest['response_format'];
    expect(openAiAdjustments(call('deepseek-chat', { response_format: format }, false), OPENAI_COMPATIBLE_DIALECTS.deepseek)).toEqual({ dropped: [], rewritten: ['response_format'] });
  });
});
