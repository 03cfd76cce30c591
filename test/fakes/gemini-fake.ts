import type { FinishReason } from './behaviour';
import { isRecord, textsOf, type Completion } from './completion';
import { startFake, type Fake, type FakeOptions } from './fake-server';
import type { ChatRequest, FakeRequest, Refusal, SseEvent, WireFormat } from './wire-format';

/**
 * Gemini API: POST /v1beta/models/{model}:generateContent and :streamGenerateContent?alt=sse,
 * key in `x-goog-api-key` or the `key` query parameter.
 */
export function startGeminiFake(options?: FakeOptions): Promise<Fake> {
  return startFake(geminiWire, options);
}

// The SDK's own types use enums and a class with getters, so the plain JSON shapes are spelled here.
type GeminiPart = { text: string } | { functionCall: { name: string; args: Record<string, unknown> } };

interface GenerateContentResponse {
  candidates: Array<{ content: { role: 'model'; parts: GeminiPart[] }; finishReason?: string; index: number }>;
  usageMetadata?: { promptTokenCount: number; candidatesTokenCount: number; totalTokenCount: number };
  modelVersion: string;
  responseId: string;
}

const FINISH_REASONS: Record<FinishReason, string> = {
  stop: 'STOP',
  length: 'MAX_TOKENS',
  // Gemini ends a turn of function calls with STOP like any other.
  tool_calls: 'STOP',
  content_filter: 'SAFETY',
};

const ERROR_STATUSES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

const ROUTE = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

const geminiWire: WireFormat = {
  provider: 'gemini',
  versionPath: '/v1beta',
  sseLineEnd: '\r\n',
  // The real API answers a bad key with 400 INVALID_ARGUMENT ("API key not valid").
  authFailureStatus: 400,
  credential: (request) => {
    const header = request.headers['x-goog-api-key'];
    return (typeof header === 'string' && header !== '' ? header : undefined) ?? request.query.get('key') ?? undefined;
  },
  parse,
  errorBody: (status, message) => ({
    error: { code: status, message, status: ERROR_STATUSES[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT') },
  }),
  json: (completion) => response(completion, parts(completion), true),
  events,
};

function parse(request: FakeRequest): ChatRequest | Refusal {
  const route = ROUTE.exec(request.path);
  if (request.method !== 'POST' || !route) return { status: 404, message: `Not found: ${request.method} ${request.path}` };
  const stream = route[2] === 'streamGenerateContent';
  if (stream && request.query.get('alt') !== 'sse') return { status: 400, message: 'the fake streams only with alt=sse' };
  const { body } = request;
  // The real API refuses an empty list as it refuses a missing one: a conversation of system text alone.
  if (!isRecord(body) || !Array.isArray(body.contents) || body.contents.length === 0) {
    return { status: 400, message: '* GenerateContentRequest.contents: contents is not specified\n' };
  }
  const contents = body.contents.filter(isRecord);
  const instruction = isRecord(body.systemInstruction) ? body.systemInstruction.parts : undefined;
  return {
    model: decodeURIComponent(route[1]),
    stream,
    usageWanted: true,
    promptTexts: [...textsOf(instruction), ...contents.flatMap((content) => textsOf(content.parts))],
    // A content without a role is the user's.
    lastUserText: textsOf(contents.filter((content) => content.role !== 'model').at(-1)?.parts).join(' '),
  };
}

/** A text part when there is text (or nothing else), then one functionCall part per call. */
function parts(completion: Completion): GeminiPart[] {
  const text: GeminiPart[] = completion.text !== '' || completion.toolCalls.length === 0 ? [{ text: completion.text }] : [];
  return [...text, ...completion.toolCalls.map((call) => ({ functionCall: { name: call.name, args: call.arguments } }))];
}

function response(completion: Completion, content: GeminiPart[], last: boolean): GenerateContentResponse {
  const { usage } = completion;
  return {
    candidates: [{ content: { role: 'model', parts: content }, ...(last && { finishReason: FINISH_REASONS[completion.finishReason] }), index: 0 }],
    ...(last &&
      usage && {
        usageMetadata: {
          promptTokenCount: usage.promptTokens,
          candidatesTokenCount: usage.completionTokens,
          totalTokenCount: usage.promptTokens + usage.completionTokens,
        },
      }),
    modelVersion: completion.model,
    responseId: completion.id,
  };
}

/**
 * One chunk per text piece, then one with every function call; the last chunk also carries
 * finishReason and usageMetadata. Nothing follows it: Gemini streams have no terminator.
 */
function events(completion: Completion): SseEvent[] {
  const calls = parts(completion).filter((part) => 'functionCall' in part);
  const chunks: GeminiPart[][] = [...completion.textPieces.map((text) => [{ text }]), ...(calls.length > 0 ? [calls] : [])];
  if (chunks.length === 0) chunks.push([{ text: '' }]);
  return chunks.map((content, index) => ({ data: JSON.stringify(response(completion, content, index === chunks.length - 1)) }));
}
