import 'reflect-metadata';
import { ConfigError } from './config/env-reader';
import { loadConfig } from './config/load-config';
import { startGateway } from './gateway';

async function main(): Promise<void> {
  const { config, notices } = loadConfig(process.env);
  const gateway = await startGateway(config, { notices });
  const stop = (): void => {
    gateway.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`gateway: shutdown failed: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  const reason = err instanceof ConfigError ? `configuration error: ${err.message}` : `failed to start: ${err instanceof Error ? err.message : String(err)}`;
  process.stderr.write(`gateway: ${reason}\n`);
  process.exit(1);
});
