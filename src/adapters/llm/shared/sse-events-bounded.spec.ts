import { join } from 'node:path';
import { LONG_RUN, unoptimizedFailures, type RunText } from '../../../../test/support/unoptimized-regexp';

// eventsource-parser checks a `retry:` value with an unbounded pattern: a provider's line of
// several MiB overflows the backtracking stack once patterns compile unoptimised.
const STREAMS: readonly RunText[] = [['a long retry line at the end', 'data: {}\n\nretry: ', '1']];

const DRAIN = `
  const { Readable } = require('node:stream');
  return (async () => {
    try {
      for await (const event of m.sseEvents('openai', { body: Readable.from([Buffer.from(text)]) }, new AbortController().signal)) void event;
    } catch (error) {
      if (error.name !== 'UpstreamError') throw error;
    }
  })();
`;

describe('an upstream stream with a line of several MiB, with patterns compiled unoptimised', () => {
  it('fails as the upstream, never with an internal error', async () => {
    expect(await unoptimizedFailures(join(__dirname, 'sse-events.ts'), DRAIN, STREAMS, LONG_RUN)).toEqual([]);
  }, 60_000);
});
