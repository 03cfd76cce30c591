import type { FakeToolCall } from '../fakes/behaviour';
import type { Fake } from '../fakes/fake-server';

/** A tool call to script: its arguments are long enough for a stream to send them in several fragments. */
export const weather: FakeToolCall = { name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } };

/**
 * One fake for the enclosing block, handed to `started` once it listens (to point a client at it).
 * Every test begins with an empty script and no recorded requests. Here rather than in test/fakes,
 * which the tools build compiles without Jest's globals.
 */
export function useFake(start: () => Promise<Fake>, started: (fake: Fake) => void): void {
  let fake: Fake;
  beforeAll(async () => {
    fake = await start();
    started(fake);
  });
  afterEach(() => fake.reset());
  afterAll(() => fake.close());
}

/** The fake's first exchange ended in a client abort, recorded within a second of `abortedAt`. */
export async function expectAbortRecorded(fake: Fake, abortedAt: number): Promise<void> {
  const record = await fake.ended(0);
  expect(record.aborted).toBe(true);
  expect(record.abortedAt).toBeGreaterThanOrEqual(abortedAt);
  expect((record.abortedAt ?? Infinity) - abortedAt).toBeLessThan(1000);
}
