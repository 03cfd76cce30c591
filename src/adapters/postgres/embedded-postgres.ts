import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * PGlite (PostgreSQL compiled to WASM) persisted under the data directory and served on a random
 * loopback port, so the ordinary pg driver, TypeORM and the same migrations work unchanged.
 * One connection at a time: PGlite is single-session.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    readonly host: string,
    readonly port: number,
  ) {}

  static async start(dataDir: string): Promise<EmbeddedPostgres> {
    const directory = join(dataDir, 'pglite');
    mkdirSync(directory, { recursive: true });
    const db = await PGlite.create(directory);
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
    await server.start();
    const [host, port] = server.getServerConn().split(':');
    return new EmbeddedPostgres(db, server, host, Number(port));
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
  }
}
