import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const repo = join(__dirname, '..', '..');
const committed = readFileSync(join(repo, 'package-lock.json'), 'utf8');

/** Runs scripts/complete-lockfile.mjs on a copy of `lock`; returns the lock it leaves. */
function completeLockfile(lock: string): string {
  const scratch = mkdtempSync(join(tmpdir(), 'gw-lock-'));
  mkdirSync(join(scratch, 'scripts'));
  copyFileSync(join(repo, 'scripts', 'complete-lockfile.mjs'), join(scratch, 'scripts', 'complete-lockfile.mjs'));
  writeFileSync(join(scratch, 'package-lock.json'), lock);
  const run = spawnSync(process.execPath, [join(scratch, 'scripts', 'complete-lockfile.mjs')], { encoding: 'utf8' });
  expect(run.status).toBe(0);
  return readFileSync(join(scratch, 'package-lock.json'), 'utf8');
}

describe('package-lock.json', () => {
  it('lists every optional dependency, so `npm ci` accepts it (after `npm install`, run `npm run lock:complete`)', () => {
    expect(completeLockfile(committed)).toBe(committed);
  });

  it('is repaired by `npm run lock:complete` after `npm install` drops the builds the registry lacks', () => {
    const lock = JSON.parse(committed) as { packages: Record<string, { version?: string }> };
    const unpublished = ['android-arm64', 'darwin-arm64', 'win32-x64-msvc'].map((platform) => `node_modules/@unrs/resolver-binding-${platform}`);
    for (const key of unpublished) {
      expect(lock.packages[key]).toEqual({ version: expect.any(String), dev: true, optional: true });
      delete lock.packages[key];
    }
    expect(completeLockfile(`${JSON.stringify(lock, null, 2)}\n`)).toBe(committed);
  });
});
