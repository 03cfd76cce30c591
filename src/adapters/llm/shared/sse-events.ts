import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { ProviderName } from '../../../modules/providers/domain/provider-name';
import { upstreamFailure, type UpstreamResponse } from './upstream-http';

/**
 * The Server-Sent Events of an upstream body, parsed by eventsource-parser as they arrive. A
 * transport failure midway (cut, idle timeout) throws UpstreamError; an abort rethrows its reason.
 */
export async function* sseEvents(provider: ProviderName, response: UpstreamResponse, signal: AbortSignal): AsyncGenerator<EventSourceMessage> {
  const pending: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event) });
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body) {
      parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
      while (pending.length > 0) yield pending.shift() as EventSourceMessage;
    }
    // The last line is parsed here, inside the try: the parser checks a `retry:` value with an
    // unbounded pattern, which a line of several MiB overflows once patterns compile unoptimised
    // (docs/decisions.md, "Bounded runs in text scans"); that is the provider's failure too.
    parser.reset({ consume: true });
  } catch (err) {
    throw upstreamFailure(provider, err, signal);
  } finally {
    // Leaving early (a malformed chunk, the client gone) must release the connection.
    if (!response.body.destroyed) response.body.destroy();
  }
  while (pending.length > 0) yield pending.shift() as EventSourceMessage;
}
