import { join } from 'node:path';
import { LONG_RUN, RUNS, unoptimizedFailures } from '../../../../test/support/unoptimized-regexp';

describe('the prompt guard on long runs, with patterns compiled unoptimised', () => {
  it('inspects a run of several MiB of any kind of character without overflowing the regexp backtracking stack', async () => {
    const failures = await unoptimizedFailures(join(__dirname, 'prompt-guard.ts'), 'return new m.PromptGuard().inspect([text]);', RUNS, LONG_RUN);
    expect(failures).toEqual([]);
  }, 120_000);
});
