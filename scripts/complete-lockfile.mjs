#!/usr/bin/env node
// Run after `npm install` changes package-lock.json (`npm run lock:complete`).
//
// An npm limitation (docs/decisions.md, "Tooling"): when the registry cannot serve some of a package's optional builds (here the
// non-Linux native bindings of unrs-resolver, which Jest uses), `npm install` leaves them out of
// the lock, and `npm ci` then refuses that very lock as "out of sync". Each missing optional
// dependency gets an entry marked optional; `npm ci` accepts the lock and installs only what the
// registry has and the platform needs.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const path = join(dirname(dirname(fileURLToPath(import.meta.url))), 'package-lock.json');
const lock = JSON.parse(readFileSync(path, 'utf8'));
const exactVersion = /^\d+\.\d+\.\d+(-[\w.]+)?$/;

/** Where npm would look for `name` from the package at `location`: its own node_modules, then each ancestor's. */
function resolvable(location, name) {
  for (let base = location; ; base = base.replace(/\/?node_modules\/(@[^/]+\/)?[^/]+$/, '')) {
    if (lock.packages[`${base ? `${base}/` : ''}node_modules/${name}`]) return true;
    if (!base) return false;
  }
}

const added = [];
for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [name, spec] of Object.entries(entry.optionalDependencies ?? {})) {
    if (resolvable(location, name)) continue;
    if (!exactVersion.test(spec)) {
      console.warn(`skipped ${name}@${spec} (optional dependency of ${location}): not an exact version`);
      continue;
    }
    lock.packages[`node_modules/${name}`] = { version: spec, ...(entry.dev ? { dev: true } : {}), optional: true };
    added.push(`${name}@${spec}`);
  }
}

lock.packages = Object.fromEntries(Object.entries(lock.packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added ${added.length} optional entries:\n  ${added.join('\n  ')}` : 'package-lock.json already complete');
