import pino, { type Logger } from 'pino';

/** What one access line says about a request. */
export interface AccessEntry {
  requestId: string;
  /** The client's X-Request-Id, already checked to be `[A-Za-z0-9_-]{1,128}`. */
  clientRequestId: string | undefined;
  method: string;
  path: string;
  peer: string;
  status: number;
  durationMs: number;
}

type AccessLevel = 'info' | 'warn' | 'error';

/**
 * The one access line per request, written straight to the root logger's destination as the JSON
 * line pino would write (`level`, `time`, the logger's `pid` and `hostname`, the fields, `msg`).
 * On the free path pino's object merge and its redaction pass cost about a tenth of the request
 * (docs/performance.md, "The CPU floor"), and this line holds nothing to redact: ids the gateway
 * made or checked, the method, the path without its query, the peer, the status and the time.
 * Strings that came from the client are JSON-escaped here; the human format, when chosen, is the
 * destination's, as for every other line.
 */
export class AccessLog {
  private readonly destination: { write(line: string): unknown };
  /** `,"pid":…,"hostname":"…"` as pino renders the root logger's bindings. */
  private readonly bindings: string;
  private readonly levels: Record<AccessLevel, number>;

  constructor(private readonly root: Logger) {
    const symbols = pino.symbols as unknown as { streamSym: symbol; chindingsSym: symbol };
    const internals = root as unknown as Record<symbol, unknown>;
    this.destination = internals[symbols.streamSym] as { write(line: string): unknown };
    this.bindings = internals[symbols.chindingsSym] as string;
    this.levels = { info: root.levels.values.info, warn: root.levels.values.warn, error: root.levels.values.error };
  }

  write(level: AccessLevel, entry: AccessEntry, message: string): void {
    if (!this.root.isLevelEnabled(level)) return;
    const client = entry.clientRequestId === undefined ? '' : `,"client_request_id":"${entry.clientRequestId}"`;
    this.destination.write(
      `{"level":${this.levels[level]},"time":${Date.now()}${this.bindings},"request_id":"${entry.requestId}"${client},` +
        `"req":{"method":${JSON.stringify(entry.method)},"url":${JSON.stringify(entry.path)},"peer":${JSON.stringify(entry.peer)}},` +
        `"res":{"status":${entry.status}},"duration_ms":${entry.durationMs},"msg":"${message}"}\n`,
    );
  }
}
