// Jest's order of test files: the longest first, so that no worker is left alone with a long suite
// at the end of the run. Jest knows a file's duration only from an earlier run on this machine; on
// a cold cache (a fresh CI checkout) it falls back to file size, which puts short files with long
// runs (the fuzz, the README commands, the workers) last and adds minutes of one idle worker. The
// estimates below stand in for the missing durations; measured ones (docs/performance.md, "The
// test run") replace them as soon as Jest has any.
const { default: Sequencer } = require('@jest/test-sequencer');

/** Suites that spawn builds, processes or long fault windows: each runs for a minute or more. */
const LONG_SUITES = ['start-command.e2e-spec.ts', 'workers.e2e-spec.ts', 'payment-fuzz.e2e-spec.ts', 'payment-rpc-faults.e2e-spec.ts'];

function estimatedSeconds(path) {
  if (LONG_SUITES.some((name) => path.endsWith(name))) return 100;
  if (path.endsWith('-linear.spec.ts') || /[\\/]settlement-[a-z0-9-]+\.e2e-spec\.ts$/.test(path)) return 40;
  if (/[\\/]test[\\/](e2e|attacks)[\\/]/.test(path)) return 10;
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
