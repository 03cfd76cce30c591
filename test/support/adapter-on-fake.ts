import type { KeyedEndpoint } from '../../src/adapters/llm/shared/keyed-endpoint';
import { UpstreamHttp } from '../../src/adapters/llm/shared/upstream-http';
import { Secret } from '../../src/config/secret';
import type { ChatRequest } from '../../src/modules/providers/domain/chat-request';
import type { ChatCompletion, ChatCompletionChunk } from '../../src/modules/providers/domain/chat-completion';
import type { LlmProvider, UpstreamCall } from '../../src/modules/providers/ports/llm-provider';
import type { Fake, FakeOptions } from '../fakes/fake-server';
import { useFake } from './spec-fakes';

/** How to stand a provider adapter up against its provider's fake. */
export interface AdapterSetup<P extends LlmProvider> {
  startFake(options: FakeOptions): Promise<Fake>;
  /** The only key the fake accepts, and the one the adapter is given. */
  apiKey: string;
  adapter(endpoint: KeyedEndpoint, http: UpstreamHttp): P;
  /** The model the calls name in the provider's API. */
  upstreamModel: string;
}

/** The adapter and its fake for the enclosing block, with the helpers its specs call it through. */
export interface AdapterOnFake<P extends LlmProvider> {
  readonly fake: Fake;
  readonly provider: P;
  /** A call for "hello there" capped at 321 tokens; `request` replaces fields of the chat request; `reasoning` marks the model as the catalog would. */
  call(request?: Partial<ChatRequest>, stream?: boolean, reasoning?: boolean): UpstreamCall;
  /** The completion of a JSON reply; fails on a stream. */
  completion(call: UpstreamCall, signal?: AbortSignal): Promise<ChatCompletion>;
  /** Every chunk of the call made as a stream; rejects with what the iteration throws. */
  chunks(call: UpstreamCall): Promise<ChatCompletionChunk[]>;
  /** The body of the first request the fake received. */
  sentBody(): Promise<Record<string, unknown>>;
}

export function adapterOnFake<P extends LlmProvider>(setup: AdapterSetup<P>): AdapterOnFake<P> {
  let fake: Fake;
  let http: UpstreamHttp;
  let provider: P;
  useFake(
    () => setup.startFake({ apiKey: setup.apiKey }),
    (started) => {
      fake = started;
      http = new UpstreamHttp({ connectMs: 2000, firstByteMs: 5000, idleMs: 5000 });
      provider = setup.adapter({ baseUrl: fake.url, apiKey: new Secret(setup.apiKey) }, http);
    },
  );
  afterAll(() => http.close());

  return {
    get fake() {
      return fake;
    },
    get provider() {
      return provider;
    },
    call: (request = {}, stream = false, reasoning = false) => ({
      upstreamModel: setup.upstreamModel,
      request: { model: 'gateway-alias', messages: [{ role: 'user', content: 'hello there' }], ...request },
      maxTokens: 321,
      stream,
      reasoning,
    }),
    completion: async (call, signal = new AbortController().signal) => {
      const reply = await provider.send(call, signal);
      if (reply.kind !== 'json') throw new Error('expected a JSON reply');
      return reply.completion;
    },
    chunks: async (call) => {
      const reply = await provider.send({ ...call, stream: true }, new AbortController().signal);
      if (reply.kind !== 'stream') throw new Error('expected a stream');
      return collect(reply.chunks);
    },
    sentBody: async () => (await fake.arrived(0)).body as Record<string, unknown>,
  };
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const collected: T[] = [];
  for await (const item of items) collected.push(item);
  return collected;
}
