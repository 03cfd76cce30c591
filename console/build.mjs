// Builds the console (docs/decisions.md, "Console") into a directory the gateway serves from:
// index.html, app.js (one bundle, Preact included) and app.css. `npm run build` builds into
// dist/console; the console's tests build into a directory of their own.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));

export async function buildConsole(outDir) {
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [join(here, 'src', 'main.tsx')],
    bundle: true,
    outfile: join(outDir, 'app.js'),
    format: 'iife',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    tsconfig: join(here, 'tsconfig.json'),
    logLevel: 'warning',
  });
  for (const file of ['index.html', 'app.css']) copyFileSync(join(here, file), join(outDir, file));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildConsole(resolve(process.argv[2] ?? join(here, '..', 'dist', 'console')));
}
