import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { llmProviderFailuresContract } from '../../../../test/contracts/llm-provider-failures.contract';
import { startOpenAiFake } from '../../../../test/fakes/openai-fake';
import { adapterOnFake, type AdapterSetup } from '../../../../test/support/adapter-on-fake';
import { Secret } from '../../../config/secret';
import type { ChatCompletionChunk } from '../../../modules/providers/domain/chat-completion';
import type { ProviderName } from '../../../modules/providers/domain/provider-name';
import { UpstreamHttp } from '../shared/upstream-http';
import { OpenAiCompatibleProvider } from './openai-compatible-provider';
import { OPENAI_COMPATIBLE_DIALECTS, type OpenAiDialect } from './dialects';

const OPENAI_DIALECT = OPENAI_COMPATIBLE_DIALECTS.openai;
const COMPATIBLE_DIALECT = OPENAI_COMPATIBLE_DIALECTS.deepseek;

function onOpenAiFake(name: ProviderName, dialect: OpenAiDialect): AdapterSetup<OpenAiCompatibleProvider> {
  return {
    startFake: startOpenAiFake,
    apiKey: `sk-${name}-test`,
    adapter: (endpoint, http) => new OpenAiCompatibleProvider(name, endpoint, http, dialect),
    upstreamModel: `${name}-test-model`,
  };
}

const messages = [
  { role: 'developer' as const, content: 'Answer in French.' },
  { role: 'user' as const, content: 'hello there' },
];

describe('OpenAiCompatibleProvider, requests', () => {
  const openai = adapterOnFake(onOpenAiFake('openai', OPENAI_DIALECT));

  it('posts to /chat/completions with the bearer key, the upstream model, the developer role and max_completion_tokens = the billed cap', async () => {
    await openai.completion(openai.call({ messages }));

    const record = await openai.fake.arrived(0);
    expect(record).toMatchObject({ method: 'POST', path: '/v1/chat/completions', headers: { authorization: 'Bearer sk-openai-test' } });
    expect(record.body).toEqual({ model: 'openai-test-model', messages, max_completion_tokens: 321 });
  });

  it('asks for usage in every stream, even when the client asked not to see it, and passes the chunks through', async () => {
    const received = await openai.chunks(openai.call({ stream_options: { include_usage: false } }));

    expect(await openai.sentBody()).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(received[0].choices[0].delta).toEqual({ role: 'assistant', content: '' });
    expect(received.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 3, completion_tokens: 6, total_tokens: 9 } });
  });

  describe('optional settings (dialects.ts)', () => {
    const settings = {
      temperature: 0.3,
      top_p: 0.9,
      presence_penalty: 0.5,
      logprobs: true,
      top_logprobs: 2,
      reasoning_effort: 'low',
      user: 'u-1',
      metadata: { team: 'a' },
      service_tier: 'priority',
    } as const;

    it('on an ordinary model: forwards logprobs, user and service_tier; drops reasoning_effort and metadata', async () => {
      const request = openai.call(settings);
      const answer = await openai.completion(request);

      expect(await openai.sentBody()).toMatchObject({ temperature: 0.3, top_p: 0.9, presence_penalty: 0.5, logprobs: true, top_logprobs: 2, user: 'u-1', service_tier: 'priority' });
      expect(await openai.sentBody()).not.toHaveProperty('reasoning_effort');
      expect(await openai.sentBody()).not.toHaveProperty('metadata');
      expect(answer.choices[0].logprobs?.content?.length).toBeGreaterThan(0);
      expect(openai.provider.adjustments(request)).toEqual({ dropped: ['reasoning_effort', 'metadata'], rewritten: [] });
    });

    it('on a reasoning model: drops the sampling settings it refuses and forwards reasoning_effort', async () => {
      const request = { ...openai.call(settings, false, true), upstreamModel: 'o4-mini' };
      await openai.completion(request);

      const body = await openai.sentBody();
      expect(body).toMatchObject({ reasoning_effort: 'low', user: 'u-1', service_tier: 'priority' });
      for (const refused of ['temperature', 'top_p', 'presence_penalty', 'logprobs', 'top_logprobs', 'metadata']) expect(body).not.toHaveProperty(refused);
      expect(openai.provider.adjustments(request)).toEqual({ dropped: ['temperature', 'top_p', 'presence_penalty', 'logprobs', 'top_logprobs', 'metadata'], rewritten: [] });
    });
  });

  describe('in the dialect of the compatible APIs', () => {
    const deepseek = adapterOnFake(onOpenAiFake('deepseek', COMPATIBLE_DIALECT));

    it('joins text parts into one string, which is all DeepSeek reads', async () => {
      const request = deepseek.call({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: '<task>Fix it</task>' },
              { type: 'text', text: '<env>linux</env>' },
            ],
          },
        ],
      });
      await deepseek.completion(request);

      expect((await deepseek.sentBody()).messages).toEqual([{ role: 'user', content: '<task>Fix it</task>\n<env>linux</env>' }]);
      expect(deepseek.provider.adjustments(request)).toEqual({ dropped: [], rewritten: ['messages[].content'] });
    });

    it('sends the billed cap as max_tokens and the developer message as a system message', async () => {
      await deepseek.completion(deepseek.call({ messages }));

      expect(await deepseek.sentBody()).toEqual({
        model: 'deepseek-test-model',
        messages: [{ role: 'system', content: 'Answer in French.' }, messages[1]],
        max_tokens: 321,
      });
    });
  });
});

describe('OpenAiCompatibleProvider, failures', () => {
  llmProviderFailuresContract({ ...onOpenAiFake('openai', OPENAI_DIALECT), provider: 'openai', cutStreamAfter: 3 });

  it('throws bad_response on a chunk that carries an error member mid-stream', async () => {
    const first: ChatCompletionChunk = {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'gpt-test',
      choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null, logprobs: null }],
    };
    // Well formed but for its error member, which alone must make it a failure.
    const failed = { ...first, choices: [], error: { message: 'overloaded', type: 'server_error' } };
    const upstream = await startStreamServer([first, failed, '[DONE]']);
    const http = new UpstreamHttp({ connectMs: 2000, firstByteMs: 5000, idleMs: 5000 });
    const provider = new OpenAiCompatibleProvider('openai', { baseUrl: upstream.url, apiKey: new Secret('sk-openai-test') }, http, OPENAI_DIALECT);
    const received: ChatCompletionChunk[] = [];

    try {
      const reply = await provider.send({ upstreamModel: 'gpt-test', request: { model: 'gpt', messages }, maxTokens: 321, stream: true, reasoning: false }, new AbortController().signal);
      if (reply.kind !== 'stream') throw new Error('expected a stream');
      const consume = async (): Promise<void> => {
        for await (const chunk of reply.chunks) received.push(chunk);
      };

      await expect(consume()).rejects.toMatchObject({ name: 'UpstreamError', provider: 'openai', kind: 'bad_response' });
      expect(received).toEqual([first]);
    } finally {
      await http.close();
      await upstream.close();
    }
  });
});

/** An upstream that streams these events' data to every request: what the fake has no behaviour for. */
async function startStreamServer(events: unknown[]): Promise<{ url: string; close: () => Promise<void> }> {
  const body = events.map((data) => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`).join('');
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
