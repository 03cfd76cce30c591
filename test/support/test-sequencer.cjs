// Jest's order of test files: the longest first, so that no worker is left alone with a long suite
// at the end of the run. Jest knows a file's duration only from an earlier run on this machine; on
// a cold cache (a fresh CI checkout) it falls back to file size, which puts short files with long
// runs (the fuzz, the README commands, the workers) last and adds minutes of one idle worker. The
// estimates below stand in for the missing durations; measured ones (docs/performance.md, "The
// test run") replace them as soon as Jest has any.
const { default: Sequencer } = require('@jest/test-sequencer');

/** Suites that spawn builds, processes or long fault windows: each runs for a minute or more. */
const LONG_SUITES = ['ops/readme-commands.e2e-spec.ts', 'ops/workers.e2e-spec.ts', 'payments/payment-fuzz.e2e-spec.ts', 'payments/rpc-faults.e2e-spec.ts'];

function estimatedSeconds(path) {
  const slashed = path.replace(/\\/g, '/');
  if (LONG_SUITES.some((name) => slashed.endsWith(`/e2e/${name}`))) return 100;
  if (slashed.endsWith('-linear.spec.ts') || /\/e2e\/payments\/settlement-[a-z0-9.-]+\.e2e-spec\.ts$/.test(slashed)) return 40;
  if (slashed.includes('/test/e2e/')) return 10;
  if (path.endsWith('.int-spec.ts')) return 5;
  return 1;
}

class LongestFirstSequencer extends Sequencer {
  sort(tests) {
    const seconds = (test) => {
      const measured = this.time(test);
      return measured == null ? estimatedSeconds(test.path) : measured / 1000;
    };
    const failed = (test) => (this.hasFailed(test) ? 1 : 0);
    return [...tests].sort((a, b) => failed(b) - failed(a) || seconds(b) - seconds(a));
  }
}

module.exports = LongestFirstSequencer;
