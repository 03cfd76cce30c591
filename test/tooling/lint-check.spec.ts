import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const repo = join(__dirname, '..', '..');
const eslint = join(repo, 'node_modules', 'eslint', 'bin', 'eslint.js');
const prettier = join(repo, 'node_modules', 'prettier', 'bin', 'prettier.cjs');

/** A scratch project with the repo's lint and format settings, its node_modules, and the given source files. */
function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'gw-lint-'));
  for (const file of ['eslint.config.mjs', '.prettierrc.json', '.prettierignore']) copyFileSync(join(repo, file), join(root, file));
  writeFileSync(join(root, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'commonjs', strict: true, types: [] }, include: ['src'] }));
  symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'), 'dir');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

function run(tool: string, args: string[], root: string): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [tool, ...args], { cwd: root, encoding: 'utf8' });
  return { status: result.status, output: result.stdout + result.stderr };
}

const clean = {
  'src/ledger.ts': 'export abstract class Ledger {\n  abstract add(amount: bigint): Promise<void>;\n}\n',
  'src/charge.ts': "import type { Ledger } from './ledger';\n\nexport async function charge(ledger: Ledger, amount: bigint): Promise<void> {\n  await ledger.add(amount);\n}\n",
};

describe('lint and format checks (npm run lint, npm run format:check)', () => {
  it('pass on a clean tree', () => {
    const root = project(clean);
    expect(run(eslint, ['.'], root)).toMatchObject({ status: 0 });
    expect(run(prettier, ['--check', '**/*.{ts,mjs,cjs}'], root)).toMatchObject({ status: 0 });
  });

  it.each([
    ['a floating promise', 'no-floating-promises', "import type { Ledger } from './ledger';\n\nexport function charge(ledger: Ledger): void {\n  ledger.add(1n);\n}\n"],
    [
      'a promise where a plain callback is expected',
      'no-misused-promises',
      "import type { Ledger } from './ledger';\n\nexport function each(ledger: Ledger, amounts: bigint[]): void {\n  amounts.forEach(async (amount) => ledger.add(amount));\n  if (ledger.add(1n)) return;\n}\n",
    ],
    ['an explicit any outside tests', 'no-explicit-any', 'export function parse(text: string): any {\n  return JSON.parse(text);\n}\n'],
    ['a type imported as a value', 'consistent-type-imports', "import { Ledger } from './ledger';\n\nexport function keep(ledger: Ledger): Ledger {\n  return ledger;\n}\n"],
  ])('lint fails on %s (%s)', (_, rule, source) => {
    const result = run(eslint, ['.'], project({ ...clean, 'src/planted.ts': source }));

    expect(result.status).toBe(1);
    expect(result.output).toContain(`@typescript-eslint/${rule}`);
  });

  it('allows any in tests', () => {
    const result = run(eslint, ['.'], project({ ...clean, 'src/parse.spec.ts': 'export const parsed: any = JSON.parse("{}");\n' }));

    expect(result.status).toBe(0);
  });

  it('format check fails on a file Prettier would change', () => {
    const result = run(prettier, ['--check', '**/*.{ts,mjs,cjs}'], project({ ...clean, 'src/planted.ts': 'export const  x = {a:1,\n b:"two"}\n' }));

    expect(result.status).toBe(1);
    expect(result.output).toContain('src/planted.ts');
  });
});
