import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/**
 * The embedded database's buffer cache. initdb writes PostgreSQL's 128 MB into postgresql.conf, and
 * in WASM memory that is about 150 MB of the gateway's resident memory; the gateway's tables
 * (spend rows, receipts, orgs) are read by key and their recent pages fit in a tenth of it, the
 * rest being in the OS page cache (docs/decisions.md, "Embedded PGlite"). Set on the command line
 * of PGlite's backend, which leaves postgresql.conf as initdb wrote it.
 */
const SHARED_BUFFERS = '16MB';

/**
 * PGlite (PostgreSQL compiled to WASM) persisted under the data directory and served on a random
 * loopback port, so the ordinary pg driver, TypeORM and the same migrations work unchanged.
 * One connection at a time: PGlite is single-session.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    private readonly unlock: () => void,
    readonly host: string,
    readonly port: number,
  ) {}

  static async start(dataDir: string): Promise<EmbeddedPostgres> {
    const directory = join(dataDir, 'pglite');
    mkdirSync(directory, { recursive: true });
    const unlock = lockDirectory(directory);
    try {
      const fresh = !existsSync(join(directory, 'PG_VERSION'));
      const db = await PGlite.create(directory, { startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`] });
      if (fresh) collectInitdbGarbage();
      const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
      await server.start();
      const [host, port] = server.getServerConn().split(':');
      return new EmbeddedPostgres(db, server, unlock, host, Number(port));
    } catch (err) {
      unlock();
      throw err;
    }
  }

  async stop(): Promise<void> {
    await this.server.stop();
    await this.db.close();
    this.unlock();
  }
}

/**
 * PGlite does not guard its directory, and two processes writing one database corrupt it. Like
 * PostgreSQL's postmaster.pid, a pid file refuses a second opener while the first one lives; a
 * file left by a process that died is taken over.
 */
function lockDirectory(directory: string): () => void {
  const path = join(directory, 'gateway.pid');
  try {
    writeFileSync(path, String(process.pid), { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const holder = Number(readFileSync(path, 'utf8'));
    if (isRunning(holder)) {
      throw new Error(`the embedded database in ${directory} is in use by process ${holder}; stop it or set another GW_DATA_DIR`);
    }
    writeFileSync(path, String(process.pid));
  }
  return () => rmSync(path, { force: true });
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A new data directory is made by PGlite's initdb, a second WASM instance whose memory (about 370
 * MB, measured here) is garbage once it finished, but an idle process allocates too little to
 * collect it: a first `npm start` held 900 MB resident against 390 MB for the next one
 * (docs/performance.md, "The CPU floor"). One full collection then, as Jest's leak detector does it.
 */
function collectInitdbGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  // Once the start has returned: until then what ran initdb is still referenced.
  setTimeout(gc, 1_000).unref();
}
