import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const repo = join(__dirname, '..', '..');
const depcruise = join(repo, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

/** A scratch project with the repo's layering rules, its node_modules, and the given source files. */
function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'gw-layers-'));
  copyFileSync(join(repo, '.dependency-cruiser.cjs'), join(root, '.dependency-cruiser.cjs'));
  copyFileSync(join(repo, 'tsconfig.json'), join(root, 'tsconfig.json'));
  symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'), 'dir');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

function checkLayers(root: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [depcruise, 'src', '--config', '.dependency-cruiser.cjs'], { cwd: root, encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

const pureDomain = {
  'src/modules/billing/domain/cost.ts': "import { fee } from './fee';\nexport const cost = (n: bigint): bigint => n + fee(n);\n",
  'src/modules/billing/domain/fee.ts': 'export const fee = (n: bigint): bigint => n / 20n;\n',
  'src/adapters/postgres/repo.ts': "import { Injectable } from '@nestjs/common';\nimport { cost } from '../../modules/billing/domain/cost';\nexport const repo = [Injectable, cost];\n",
};

describe('layering check (npm run check:layers)', () => {
  it('passes on pure domain code, with infrastructure used from the adapters', () => {
    const result = checkLayers(project(pureDomain));
    expect(result.output).toContain('no dependency violations found');
    expect(result.status).toBe(0);
  });

  it('fails on planted violations: a domain importing NestJS, TypeORM, Solana, Redis or an adapter', () => {
    const result = checkLayers(
      project({
        ...pureDomain,
        'src/modules/billing/domain/planted-nest.ts': "import { Injectable } from '@nestjs/common';\nexport const a = Injectable;\n",
        'src/modules/billing/domain/planted-orm.ts': "import { DataSource } from 'typeorm';\nexport const b = DataSource;\n",
        'src/modules/routing/domain/planted-solana.ts': "import { PublicKey } from '@solana/web3.js';\nexport const c = PublicKey;\n",
        'src/modules/routing/domain/planted-redis.ts': "import { Redis } from 'ioredis';\nexport const d = Redis;\n",
        'src/modules/routing/domain/planted-adapter.ts': "import { repo } from '../../../adapters/postgres/repo';\nexport const e = repo;\n",
      }),
    );
    expect(result.status).not.toBe(0);
    for (const file of ['planted-nest.ts', 'planted-orm.ts', 'planted-solana.ts', 'planted-redis.ts']) {
      expect(result.output).toMatch(new RegExp(`domain-imports-infrastructure: src/modules/\\w+/domain/${file}`));
    }
    expect(result.output).toMatch(/domain-imports-outer-layers: src\/modules\/routing\/domain\/planted-adapter\.ts/);
  });
});
