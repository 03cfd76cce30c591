import { startFakeFromEnv } from './from-env';

// A standalone fake provider for benchmarks: prints its base URL, then serves until killed.
startFakeFromEnv(process.env).then(
  (fake) => process.stdout.write(`${fake.url}\n`),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
