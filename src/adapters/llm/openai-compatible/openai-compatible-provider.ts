import type { ChatCompletion, ChatCompletionChunk } from '../../../modules/providers/domain/chat-completion';
import type { ProviderName } from '../../../modules/providers/domain/provider-name';
import { UpstreamError } from '../../../modules/providers/domain/upstream-error';
import { LlmProvider, type RequestAdjustments, type UpstreamCall, type UpstreamReply } from '../../../modules/providers/ports/llm-provider';
import { parseEventJson } from '../shared/event-json';
import type { KeyedEndpoint } from '../shared/keyed-endpoint';
import { sseEvents } from '../shared/sse-events';
import { withToolArguments } from '../shared/tool-call-arguments';
import { readJson, type UpstreamHttp, type UpstreamResponse } from '../shared/upstream-http';
import type { OpenAiDialect } from './dialects';
import { openAiAdjustments, openAiRequestBody } from './openai-request';

/**
 * OpenAI's Chat Completions API and the APIs that copy it (xAI, DeepSeek, NVIDIA): the request and
 * answer are already in our shape, so the adapter only checks them and watches the stream's end.
 */
export class OpenAiCompatibleProvider extends LlmProvider {
  private readonly url: string;
  private readonly headers: Record<string, string>;

  constructor(
    readonly name: ProviderName,
    endpoint: KeyedEndpoint,
    private readonly http: UpstreamHttp,
    private readonly dialect: OpenAiDialect,
  ) {
    super();
    this.url = `${endpoint.baseUrl}/chat/completions`;
    this.headers = { authorization: `Bearer ${endpoint.apiKey.reveal()}` };
  }

  async send(call: UpstreamCall, signal: AbortSignal): Promise<UpstreamReply> {
    const response = await this.http.postJson(this.name, this.url, this.headers, openAiRequestBody(call, this.dialect), signal);
    if (!call.stream) return { kind: 'json', completion: this.completion(await readJson(this.name, response, signal)) };
    // Some compatible servers stream a call without parameters as `arguments: ""` and nothing more.
    return { kind: 'stream', chunks: withToolArguments(this.chunks(response, signal)) };
  }

  adjustments(call: UpstreamCall): RequestAdjustments {
    return openAiAdjustments(call, this.dialect);
  }

  private completion(body: unknown): ChatCompletion {
    const completion = body as Partial<ChatCompletion> | null;
    if (!completion || !Array.isArray(completion.choices) || completion.choices.length === 0 || completion.choices.some((c) => typeof c?.message !== 'object' || c.message === null)) {
      throw new UpstreamError(this.name, 'bad_response', `${this.name} sent a completion without choices`);
    }
    return completion as ChatCompletion;
  }

  /** Chunks until `data: [DONE]`; a stream that ends without it was cut. */
  private async *chunks(response: UpstreamResponse, signal: AbortSignal): AsyncGenerator<ChatCompletionChunk> {
    for await (const event of sseEvents(this.name, response, signal)) {
      if (event.data === '[DONE]') return;
      const chunk = parseEventJson(this.name, event.data) as (ChatCompletionChunk & { error?: unknown }) | null;
      if (!chunk || chunk.error !== undefined || !Array.isArray(chunk.choices)) {
        throw new UpstreamError(this.name, 'bad_response', `${this.name} sent an error or malformed chunk mid-stream`);
      }
      yield chunk;
    }
    throw new UpstreamError(this.name, 'unavailable', `${this.name} stream ended without [DONE]`);
  }
}
