#!/usr/bin/env node
// `npm start`: compile (the server, then the console's bundle) when the sources changed since the
// last successful build, then serve.
// Installs nothing; the TypeScript compiler comes from `npm ci`.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const entry = join(root, 'dist', 'src', 'main.js');
const stamp = join(root, 'dist', '.build-stamp');
const inputs = ['src', 'libs', 'migrations', 'console', 'tsconfig.json', 'tsconfig.build.json', 'package.json'];

function newestChange(path) {
  if (!existsSync(path)) return 0;
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestChange(join(path, name))), stats.mtimeMs);
}

const builtAt = existsSync(stamp) && existsSync(entry) ? statSync(stamp).mtimeMs : 0;
if (Math.max(...inputs.map((input) => newestChange(join(root, input)))) > builtAt) {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  for (const step of [[tsc, '-p', join(root, 'tsconfig.build.json')], [join(root, 'console', 'build.mjs')]]) {
    const build = spawnSync(process.execPath, step, { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
  writeFileSync(stamp, new Date().toISOString());
}

await import(pathToFileURL(entry).href);
