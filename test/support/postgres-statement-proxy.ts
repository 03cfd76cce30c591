import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * A byte-for-byte TCP proxy in front of PostgreSQL that can fail one chosen statement in the two
 * ways a network does: its answer lost after the server ran (and, outside a transaction, committed)
 * it, or the connection gone before the statement reached the server. A statement is chosen by a
 * piece of its SQL text as it crosses the wire (the pg driver sends it in clear, in its Parse or
 * Query message).
 */
export interface PostgresStatementProxy {
  /** The loopback port to connect to instead of the server's. */
  port: number;
  /**
   * The next statement containing `sql` reaches the server, but nothing the server answers on that
   * connection reaches the client; `cutAfterMs` later both sides are closed. Resolves then.
   */
  loseAnswerOf(sql: string, cutAfterMs?: number): Promise<void>;
  /** The next statement containing `sql` never reaches the server: its connection is closed at once. Resolves then. */
  failOf(sql: string): Promise<void>;
  close(): Promise<void>;
}

export async function startPostgresStatementProxy(target: { host: string; port: number }): Promise<PostgresStatementProxy> {
  const open = new Set<Socket>();
  let lose: { sql: string; cutAfterMs: number; done: () => void } | null = null;
  let fail: { sql: string; done: () => void } | null = null;

  const server = createServer((client) => {
    const upstream = connect({ host: target.host, port: target.port });
    let answersLost = false;
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    }
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.on('data', (chunk: Buffer) => {
      const text = chunk.toString('latin1');
      if (fail && text.includes(fail.sql)) {
        const { done } = fail;
        fail = null;
        drop();
        done();
        return;
      }
      if (!answersLost && lose && text.includes(lose.sql)) {
        answersLost = true;
        const { cutAfterMs, done } = lose;
        lose = null;
        setTimeout(() => {
          drop();
          done();
        }, cutAfterMs);
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (!answersLost) client.write(chunk);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });

  return {
    port: (server.address() as AddressInfo).port,
    loseAnswerOf: (sql, cutAfterMs = 400) => new Promise<void>((resolve) => (lose = { sql, cutAfterMs, done: resolve })),
    failOf: (sql) => new Promise<void>((resolve) => (fail = { sql, done: resolve })),
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
