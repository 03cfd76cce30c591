/**
 * One run for every layer: unit (*.spec.ts beside the code), adapter integration (*.int-spec.ts,
 * real PostgreSQL, Redis and PGlite) and end to end (test/e2e/<surface>/*.e2e-spec.ts, the app on
 * a real port). Attack suites keep their layer's suffix after `.attack` (*.attack.spec.ts,
 * *.attack.e2e-spec.ts), so these three patterns take them. test/README.md is the guide.
 * Type checking is `npm run typecheck`; ts-jest only transpiles.
 */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src', '<rootDir>/libs', '<rootDir>/migrations', '<rootDir>/test'],
  testMatch: ['**/*.spec.ts', '**/*.int-spec.ts', '**/*.e2e-spec.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  testSequencer: '<rootDir>/test/support/test-sequencer.cjs',
  setupFiles: ['reflect-metadata'],
  // A hang guard, not a speed check: beside the rest of the run, a test that opens PGlite or spawns
  // gateways takes several times what it takes alone.
  testTimeout: 60000,
  // Three workers on two cores: many suites wait on timeouts, confirmations and child processes, and
  // a third worker uses that idle CPU (docs/performance.md, "The test run").
  maxWorkers: 3,
  // A worker grows by every suite it ran (each loads the whole app; what a suite leaves behind stays
  // reachable), past 2 GB by the end of a run, and its collections slowed every later suite enough
  // to trip timing tests: a worker above this after a suite is replaced by a fresh one.
  workerIdleMemoryLimit: '1GB',
};
