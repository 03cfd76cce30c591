import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { GatewayError } from '../../../errors/gateway-error';

/** The files of the built console (console/build.mjs writes them) and the type each is served as. */
const CONSOLE_FILES: Readonly<Record<string, string>> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};

/** The directory the console's bundle is served from. */
export class ConsoleBundle {
  constructor(private readonly dir: string) {}

  /** The file's bytes, read at each request so that a rebuild shows without a restart; null for a name not in the bundle. */
  async file(name: string): Promise<{ body: Buffer; type: string } | null> {
    const type = Object.hasOwn(CONSOLE_FILES, name) ? CONSOLE_FILES[name] : undefined;
    if (type === undefined) return null;
    try {
      return { body: await readFile(join(this.dir, name)), type };
    } catch (err) {
      throw new GatewayError('console.not_built', 'the console is not built: run npm run build', {}, { cause: err });
    }
  }
}

/**
 * `dist/console` of the checkout this file runs from: compiled, this file is at
 * `dist/src/modules/console/http` (the build mirrors the sources under dist, as the Docker image
 * keeps it); under the tests it is the source itself, at `src/modules/console/http`.
 */
export function builtConsoleDir(): string {
  const top = join(__dirname, '..', '..', '..', '..');
  return extname(__filename) === '.js' ? join(top, 'console') : join(top, 'dist', 'console');
}
