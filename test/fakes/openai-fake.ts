import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { isRecord, textsOf, type Completion } from './completion';
import { startFake, type Fake, type FakeOptions } from './fake-server';
import type { ChatRequest, FakeRequest, Refusal, SseEvent, WireFormat } from './wire-format';

/** OpenAI Chat Completions (also what xai, deepseek and nvidia speak): POST /v1/chat/completions. */
export function startOpenAiFake(options?: FakeOptions): Promise<Fake> {
  return startFake(openAiWire, options);
}

const openAiWire: WireFormat = {
  provider: 'openai',
  versionPath: '/v1',
  requestIdHeader: 'x-request-id',
  sseLineEnd: '\n',
  authFailureStatus: 401,
  credential: (request) => /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1],
  parse,
  errorBody: (status, message) => ({
    error: {
      message,
      type: status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error',
      param: null,
      code: status === 401 ? 'invalid_api_key' : status === 429 ? 'rate_limit_exceeded' : null,
    },
  }),
  json,
  events,
};

function parse(request: FakeRequest): ChatRequest | Refusal {
  if (request.method !== 'POST' || request.path !== '/v1/chat/completions') {
    return { status: 404, message: `Invalid URL (${request.method} ${request.path})` };
  }
  const { body } = request;
  if (!isRecord(body) || typeof body.model !== 'string' || !Array.isArray(body.messages)) {
    return { status: 400, message: "'model' and 'messages' are required" };
  }
  const messages = body.messages.filter(isRecord);
  const stream = body.stream === true;
  return {
    model: body.model,
    stream,
    usageWanted: !stream || (isRecord(body.stream_options) && body.stream_options.include_usage === true),
    promptTexts: messages.flatMap((message) => textsOf(message.content)),
    lastUserText: textsOf(messages.filter((message) => message.role === 'user').at(-1)?.content).join(' '),
  };
}

function json(completion: Completion): ChatCompletion {
  const { toolCalls } = completion;
  return {
    id: `chatcmpl-${completion.id}`,
    object: 'chat.completion',
    created: completion.created,
    model: completion.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: completion.text === '' && toolCalls.length > 0 ? null : completion.text,
          refusal: null,
          ...(toolCalls.length > 0 && {
            tool_calls: toolCalls.map((call) => ({ id: `call_${call.id}`, type: 'function' as const, function: { name: call.name, arguments: call.argumentsJson } })),
          }),
        },
        logprobs: null,
        finish_reason: completion.finishReason,
      },
    ],
    ...(completion.usage && { usage: usage(completion.usage) }),
  };
}

/** Role first, then content pieces, tool calls (name, then argument fragments), finish, usage, `[DONE]`. */
function events(completion: Completion): SseEvent[] {
  const chunk = (choices: ChatCompletionChunk['choices'], extra: Partial<ChatCompletionChunk> = {}): SseEvent => {
    const body: ChatCompletionChunk = {
      id: `chatcmpl-${completion.id}`,
      object: 'chat.completion.chunk',
      created: completion.created,
      model: completion.model,
      choices,
      // With include_usage every chunk carries `usage: null` until the last one.
      ...(completion.usage && { usage: null }),
      ...extra,
    };
    return { data: JSON.stringify(body) };
  };
  const delta = (delta: ChatCompletionChunk.Choice.Delta): SseEvent => chunk([{ index: 0, delta, logprobs: null, finish_reason: null }]);
  return [
    delta({ role: 'assistant', content: '' }),
    ...completion.textPieces.map((content) => delta({ content })),
    ...completion.toolCalls.flatMap((call, index) => [
      delta({ tool_calls: [{ index, id: `call_${call.id}`, type: 'function', function: { name: call.name, arguments: '' } }] }),
      ...call.argumentFragments.map((fragment) => delta({ tool_calls: [{ index, function: { arguments: fragment } }] })),
    ]),
    chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: completion.finishReason }]),
    ...(completion.usage ? [chunk([], { usage: usage(completion.usage) })] : []),
    { data: '[DONE]' },
  ];
}

function usage({ promptTokens, completionTokens }: NonNullable<Completion['usage']>): CompletionUsage {
  return { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
}
