import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../../src/adapters/postgres/database';

const ROOT = join(__dirname, '../..');
const MIGRATIONS_DIR = join(ROOT, 'migrations');

let template: Promise<string> | undefined;

/**
 * A fresh gateway data directory whose embedded PGlite is already created and migrated: a copy
 * of a template made once. Creating a PGlite cluster runs initdb in WASM, seconds of CPU each time
 * (about 3 s on an idle core, over 10 s in the parallel test run), while copying the result takes
 * a tenth of a second. Tests of creating and migrating a new directory use an empty one instead.
 */
export async function migratedDataDir(): Promise<string> {
  template ??= templateDir();
  const copy = mkdtempSync(join(tmpdir(), 'gw-pglite-'));
  cpSync(await template, copy, { recursive: true });
  return copy;
}

/**
 * The template, named for the migrations and the PGlite version it was made with, so that a
 * changed schema gets a new one. Jest's workers may race to make it: each builds its own and
 * renames it into place, and the loser's rename fails on the winner's directory.
 */
async function templateDir(): Promise<string> {
  const path = join(tmpdir(), `gw-pglite-template-${schemaHash()}`);
  if (existsSync(path)) return path;
  const building = mkdtempSync(join(tmpdir(), 'gw-pglite-building-'));
  const database = await Database.open({ kind: 'pglite', dataDir: building });
  await database.close();
  try {
    renameSync(building, path);
  } catch (err) {
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(path)) throw err;
  }
  return path;
}

function schemaHash(): string {
  const hash = createHash('sha256');
  hash.update((JSON.parse(readFileSync(join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }).version);
  for (const file of readdirSync(MIGRATIONS_DIR).sort()) hash.update(file).update(readFileSync(join(MIGRATIONS_DIR, file)));
  return hash.digest('hex').slice(0, 16);
}

/**
 * One embedded database for the tests of a file, emptied before each of them rather than opened
 * for each: every open compiles PGlite's WASM again, which took 5 to 7 s per test in the parallel
 * run. Closed after the file's tests.
 */
export function emptiedPgliteEachTime(): () => Promise<Database> {
  let database: Promise<Database> | undefined;
  afterAll(async () => {
    await (await database)?.close();
  });
  return async () => {
    database ??= migratedDataDir().then((dataDir) => Database.open({ kind: 'pglite', dataDir }));
    const opened = await database;
    const tables = (await opened.dataSource.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'migrations'`)) as Array<{ tablename: string }>;
    if (tables.length > 0) await opened.dataSource.query(`TRUNCATE ${tables.map(({ tablename }) => `"${tablename}"`).join(', ')} RESTART IDENTITY CASCADE`);
    return opened;
  };
}
