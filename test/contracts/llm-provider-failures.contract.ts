import type { ChatCompletionChunk } from '../../src/modules/providers/domain/chat-completion';
import type { ProviderName } from '../../src/modules/providers/domain/provider-name';
import { UpstreamError } from '../../src/modules/providers/domain/upstream-error';
import type { LlmProvider } from '../../src/modules/providers/ports/llm-provider';
import { adapterOnFake, type AdapterSetup } from '../support/adapter-on-fake';

/** An adapter as its spec stands it up on its fake, plus what the contract expects of its failures. */
export interface AdapterUnderTest<P extends LlmProvider> extends AdapterSetup<P> {
  /** The name every UpstreamError must carry. */
  provider: ProviderName;
  /** Stream events the fake sends before it cuts the connection: mid-content in this wire format. */
  cutStreamAfter: number;
}

/** How every LlmProvider adapter fails; each adapter's spec runs it against its provider's fake. */
export function llmProviderFailuresContract<P extends LlmProvider>(adapter: AdapterUnderTest<P>): void {
  const upstream = adapterOnFake(adapter);
  const { call, completion, chunks } = upstream;

  it.each([
    [429, 'unavailable'],
    [503, 'unavailable'],
    [400, 'bad_response'],
  ] as const)('turns HTTP %i into UpstreamError %s with the status', async (status, kind) => {
    upstream.fake.script({ kind: 'status', status });

    await expect(completion(call())).rejects.toMatchObject({ name: 'UpstreamError', provider: adapter.provider, kind, status });
  });

  it('turns a reset into unavailable and a body that is not JSON into bad_response', async () => {
    upstream.fake.script({ kind: 'reset' }, { kind: 'malformed-json' });

    await expect(completion(call())).rejects.toMatchObject({ kind: 'unavailable' });
    await expect(completion(call())).rejects.toMatchObject({ kind: 'bad_response' });
  });

  it.each([
    [{ kind: 'cut-stream', afterChunks: adapter.cutStreamAfter }, 'unavailable'],
    [{ kind: 'malformed-chunk' }, 'bad_response'],
    [{ kind: 'missing-done' }, 'unavailable'],
  ] as const)('throws while iterating a stream that goes wrong (%j)', async (behaviour, kind) => {
    upstream.fake.script(behaviour);

    const error: unknown = await chunks(call()).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ provider: adapter.provider, kind });
  });

  it('rethrows the signal reason when aborted before the first byte, and the fake sees the abort', async () => {
    upstream.fake.script({ kind: 'reply', firstByteDelayMs: 5000 });
    const controller = new AbortController();
    const reason = new Error('client gone');

    const pending = completion(call(), controller.signal);
    await upstream.fake.arrived(0);
    controller.abort(reason);

    await expect(pending).rejects.toBe(reason);
    expect((await upstream.fake.ended(0)).aborted).toBe(true);
  });

  it('rethrows the signal reason when aborted mid-stream, and the fake sees the abort', async () => {
    upstream.fake.script({ kind: 'reply', chunkDelayMs: 100 });
    const controller = new AbortController();
    const reason = new Error('client gone');
    const reply = await upstream.provider.send(call({}, true), controller.signal);
    if (reply.kind !== 'stream') throw new Error('expected a stream');
    const iterator = reply.chunks[Symbol.asyncIterator]();

    await iterator.next();
    controller.abort(reason);

    // What was already received may still come out; then the abort surfaces.
    await expect(drain(iterator)).rejects.toBe(reason);
    expect((await upstream.fake.ended(0)).aborted).toBe(true);
  });
}

async function drain(iterator: AsyncIterator<ChatCompletionChunk>): Promise<void> {
  while (!(await iterator.next()).done);
}
