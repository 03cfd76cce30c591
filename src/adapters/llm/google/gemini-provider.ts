import type { ProviderName } from '../../../modules/providers/domain/provider-name';
import { LlmProvider, type RequestAdjustments, type UpstreamCall, type UpstreamReply } from '../../../modules/providers/ports/llm-provider';
import type { KeyedEndpoint } from '../shared/keyed-endpoint';
import { sseEvents } from '../shared/sse-events';
import { requestAdjustments } from '../shared/parameter-support';
import { readJson, type UpstreamHttp } from '../shared/upstream-http';
import { geminiParameters } from './gemini-parameters';
import { geminiRequestBody } from './gemini-request';
import { geminiCompletion, geminiResponse } from './gemini-response';
import { geminiChunks } from './gemini-stream';

/** Gemini's generateContent and streamGenerateContent (`baseUrl` ends in /v1beta), translated to and from OpenAI's chat shapes. */
export class GeminiProvider extends LlmProvider {
  readonly name: ProviderName = 'google';
  private readonly modelsUrl: string;
  private readonly headers: Record<string, string>;

  constructor(
    endpoint: KeyedEndpoint,
    private readonly http: UpstreamHttp,
  ) {
    super();
    this.modelsUrl = `${endpoint.baseUrl}/models`;
    this.headers = { 'x-goog-api-key': endpoint.apiKey.reveal() };
  }

  async send(call: UpstreamCall, signal: AbortSignal): Promise<UpstreamReply> {
    const model = `${this.modelsUrl}/${encodeURIComponent(call.upstreamModel)}`;
    // alt=sse: without it the stream is one JSON array, only parseable whole.
    const url = call.stream ? `${model}:streamGenerateContent?alt=sse` : `${model}:generateContent`;
    const response = await this.http.postJson(this.name, url, this.headers, geminiRequestBody(call), signal);
    if (!call.stream) return { kind: 'json', completion: geminiCompletion(geminiResponse(await readJson(this.name, response, signal)), call.upstreamModel) };
    return { kind: 'stream', chunks: geminiChunks(sseEvents(this.name, response, signal), call.upstreamModel) };
  }

  adjustments(call: UpstreamCall): RequestAdjustments {
    return requestAdjustments(call.request, geminiParameters(call));
  }
}
