import type { GatewayEnv, LogFormat } from '../config/gateway-config';

/** How log lines reach stdout: pino's JSON lines, or the compact human form of pretty-log-line.ts. */
export type { LogFormat };

export interface LogFormatInputs {
  env: GatewayEnv;
  /** Whether stdout is a terminal: anything else (a pipe, a file, a collector) gets JSON. */
  isTty: boolean;
  /** GW_LOG_FORMAT, which wins over both when set. */
  override?: LogFormat | null;
}

/**
 * JSON unless a person is reading: production always gets JSON, because its collectors parse
 * lines; so does any stdout that is not a terminal, so that `| jq` and log files keep working in
 * development too. GW_LOG_FORMAT overrides the choice either way.
 */
export function logFormat({ env, isTty, override }: LogFormatInputs): LogFormat {
  if (override) return override;
  return env === 'development' && isTty ? 'pretty' : 'json';
}
