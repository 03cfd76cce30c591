import { CHROMIUM_PATH, markService, probeChromium, probePostgres, probeRedis, type Service } from './services';

/**
 * Finds out once whether PostgreSQL and Redis answer, and whether Chromium is installed. Under CI=true a missing service fails the
 * whole run; elsewhere the tests that need it report themselves skipped, with the reason.
 */
export default async function globalSetup(): Promise<void> {
  const probes: Array<[Service, string, Promise<string | null>]> = [
    ['postgres', 'PostgreSQL at 127.0.0.1:5432', probePostgres()],
    ['redis', 'Redis at 127.0.0.1:6379', probeRedis()],
    ['chromium', `Chromium at ${CHROMIUM_PATH}`, probeChromium()],
  ];
  for (const [service, label, probe] of probes) {
    const failure = await probe;
    markService(service, failure === null);
    if (failure === null) continue;
    if (process.env.CI === 'true') {
      throw new Error(`${label} is required under CI=true but did not answer: ${failure}`);
    }
    process.stderr.write(`\n[test setup] ${label} did not answer (${failure}); tests that need it are skipped.\n`);
  }
}
