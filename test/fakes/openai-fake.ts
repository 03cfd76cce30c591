import type { ChatCompletion, ChatCompletionChunk, ChatCompletionTokenLogprob } from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { isRecord, textsOf, type Completion } from './completion';
import { startFake, type Fake, type FakeOptions } from './fake-server';
import type { ChatRequest, FakeRequest, Refusal, SseEvent, WireFormat } from './wire-format';

/** OpenAI Chat Completions (also what xai and nvidia speak): POST /v1/chat/completions. */
export function startOpenAiFake(options?: FakeOptions): Promise<Fake> {
  return startFake(openAiWire, options);
}

/** DeepSeek's copy of it, which reads message content only as a string, as the real API does. */
export function startDeepSeekFake(options?: FakeOptions): Promise<Fake> {
  return startFake(deepSeekWire, options);
}

/** OpenAI's reasoning models (o-series, GPT-5) refuse these with `unsupported_parameter`. */
const REASONING_MODEL = /^(o\d|gpt-5)/;
const SAMPLING = ['temperature', 'top_p', 'presence_penalty', 'frequency_penalty', 'logprobs', 'top_logprobs'];

const openAiWire: WireFormat = {
  provider: 'openai',
  versionPath: '/v1',
  requestIdHeader: 'x-request-id',
  sseLineEnd: '\n',
  authFailureStatus: 401,
  credential: (request) => /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1],
  parse,
  errorBody: (status, message, code) => ({
    error: {
      message,
      type: status === 429 ? 'requests' : status >= 500 ? 'server_error' : 'invalid_request_error',
      param: null,
      code: code ?? (status === 401 ? 'invalid_api_key' : status === 429 ? 'rate_limit_exceeded' : null),
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
  const refusal = parameterRefusal(body.model, body);
  if (refusal) return refusal;
  const messages = body.messages.filter(isRecord);
  const stream = body.stream === true;
  return {
    model: body.model,
    stream,
    usageWanted: !stream || (isRecord(body.stream_options) && body.stream_options.include_usage === true),
    promptTexts: messages.flatMap((message) => textsOf(message.content)),
    lastUserText: textsOf(messages.filter((message) => message.role === 'user').at(-1)?.content).join(' '),
    logprobsWanted: body.logprobs === true,
  };
}

/** What the real API refuses of a well-formed body: sampling on reasoning models, effort elsewhere, metadata without storage. */
function parameterRefusal(model: string, body: Record<string, unknown>): Refusal | undefined {
  const unsupported = (parameter: string): Refusal => ({ status: 400, message: `Unsupported parameter: '${parameter}' is not supported with this model.`, code: 'unsupported_parameter' });
  const reasoning = REASONING_MODEL.test(model);
  const sampling = SAMPLING.find((parameter) => body[parameter] !== undefined);
  if (reasoning && sampling) return unsupported(sampling);
  if (!reasoning && body.reasoning_effort !== undefined) return unsupported('reasoning_effort');
  if (body.metadata !== undefined && body.store !== true) return { status: 400, message: "The 'metadata' parameter is only allowed when 'store' is enabled." };
  if (body.top_logprobs !== undefined && body.logprobs !== true) return { status: 400, message: 'logprobs must be set to true if top_logprobs is used.' };
  return undefined;
}

const deepSeekWire: WireFormat = {
  ...openAiWire,
  provider: 'deepseek',
  parse: (request) => {
    const messages = isRecord(request.body) && Array.isArray(request.body.messages) ? request.body.messages : [];
    const array = messages.findIndex((message) => isRecord(message) && Array.isArray(message.content));
    // DeepSeek's deserialiser refuses the whole body (422) on a part array.
    if (array >= 0) return { status: 422, message: `Failed to deserialize the JSON body into the target type: messages[${array}]: invalid type: sequence, expected a string` };
    return parse(request);
  },
};

/** A `bare` reply leaves out `refusal` and `logprobs`, which OpenAI's type requires: hence the cast. */
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
          ...(!completion.bare && { refusal: null }),
          ...(toolCalls.length > 0 && {
            tool_calls: toolCalls.map((call) => ({ id: `call_${call.id}`, type: 'function' as const, function: { name: call.name, arguments: call.argumentsJson } })),
          }),
        },
        ...(!completion.bare && { logprobs: completion.logprobs ? { content: completion.textPieces.map(logprob), refusal: null } : null }),
        finish_reason: completion.finishReason,
      },
    ] as ChatCompletion['choices'],
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
    ...completion.textPieces.map((content) =>
      completion.logprobs ? chunk([{ index: 0, delta: { content }, logprobs: { content: [logprob(content)], refusal: null }, finish_reason: null }]) : delta({ content }),
    ),
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

/** A made-up but well-formed log probability for one piece of text. */
function logprob(token: string): ChatCompletionTokenLogprob {
  return { token, logprob: -0.25, bytes: [...Buffer.from(token)], top_logprobs: [] };
}
