import type { Message } from '@anthropic-ai/sdk/resources/messages';
import type { ProviderName } from '../../../modules/providers/domain/provider-name';
import { UpstreamError } from '../../../modules/providers/domain/upstream-error';
import { LlmProvider, type RequestAdjustments, type UpstreamCall, type UpstreamReply } from '../../../modules/providers/ports/llm-provider';
import { isJsonObject } from '../shared/json-object';
import type { KeyedEndpoint } from '../shared/keyed-endpoint';
import { sseEvents } from '../shared/sse-events';
import { requestAdjustments } from '../shared/parameter-support';
import { readJson, type UpstreamHttp } from '../shared/upstream-http';
import { anthropicParameters, jsonOutputTool } from './anthropic-parameters';
import { anthropicRequestBody } from './anthropic-request';
import { anthropicCompletion } from './anthropic-response';
import { anthropicChunks } from './anthropic-stream';

/** The API version whose request and event shapes the adapter speaks. */
const ANTHROPIC_VERSION = '2023-06-01';

/** Anthropic's Messages API (`baseUrl` ends in /v1), translated to and from OpenAI's chat shapes. */
export class AnthropicProvider extends LlmProvider {
  readonly name: ProviderName = 'anthropic';
  private readonly url: string;
  private readonly headers: Record<string, string>;

  constructor(
    endpoint: KeyedEndpoint,
    private readonly http: UpstreamHttp,
  ) {
    super();
    this.url = `${endpoint.baseUrl}/messages`;
    this.headers = { 'x-api-key': endpoint.apiKey.reveal(), 'anthropic-version': ANTHROPIC_VERSION };
  }

  async send(call: UpstreamCall, signal: AbortSignal): Promise<UpstreamReply> {
    const response = await this.http.postJson(this.name, this.url, this.headers, anthropicRequestBody(call), signal);
    const jsonTool = jsonOutputTool(call.request)?.name;
    // A request from the Messages surface gets Anthropic's own answer beside the translation (docs/decisions.md, "Anthropic passthrough").
    const passthrough = call.request.anthropic !== undefined;
    if (!call.stream) {
      const message = this.message(await readJson(this.name, response, signal));
      const completion = anthropicCompletion(message, jsonTool);
      return { kind: 'json', completion: passthrough ? { ...completion, anthropic: message } : completion };
    }
    return { kind: 'stream', chunks: anthropicChunks(sseEvents(this.name, response, signal), jsonTool, passthrough) };
  }

  adjustments(call: UpstreamCall): RequestAdjustments {
    return requestAdjustments(call.request, anthropicParameters(call.request, call.maxTokens));
  }

  private message(body: unknown): Message {
    if (!isJsonObject(body) || typeof body.id !== 'string' || !Array.isArray(body.content) || !body.content.every(isJsonObject)) {
      throw new UpstreamError(this.name, 'bad_response', `${this.name} sent a body that is not a message`);
    }
    return body as unknown as Message;
  }
}
