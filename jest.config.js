/**
 * One run for every layer: unit (*.spec.ts beside the code), adapter integration (*.int-spec.ts,
 * real PostgreSQL, Redis and PGlite) and end to end (test/e2e/*.e2e-spec.ts, the app on a real port).
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
  testTimeout: 30000,
  maxWorkers: 2,
};
