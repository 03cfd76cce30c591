import { join } from 'node:path';
import { LONG_RUN, RUNS, unoptimizedFailures } from '../../../../test/support/unoptimized-regexp';

describe('the router score on long runs, with patterns compiled unoptimised', () => {
  it('scores a run of several MiB of any kind of character without overflowing the regexp backtracking stack', async () => {
    const failures = await unoptimizedFailures(join(__dirname, 'complexity-scorer.ts'), 'return m.scoreComplexity({ userText: text, messageCount: 1, usesTools: false });', RUNS, LONG_RUN);
    expect(failures).toEqual([]);
  }, 120_000);
});
