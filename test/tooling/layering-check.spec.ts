import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const repo = join(__dirname, '..', '..');

/** A scratch project with the repo's layering rules, its node_modules, and the given source files. */
function project(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'gw-layers-'));
  copyFileSync(join(repo, '.dependency-cruiser.cjs'), join(root, '.dependency-cruiser.cjs'));
  mkdirSync(join(root, 'scripts'));
  copyFileSync(join(repo, 'scripts', 'check-layers.mjs'), join(root, 'scripts', 'check-layers.mjs'));
  copyFileSync(join(repo, 'tsconfig.json'), join(root, 'tsconfig.json'));
  symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'), 'dir');
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

function checkLayers(root: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [join('scripts', 'check-layers.mjs')], { cwd: root, encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

/** Every layer, each importing only what it may; the planted violations below import from it. */
const cleanTree = {
  'src/modules/billing/domain/cost.ts': "import { fee } from './fee';\nexport const cost = (n: bigint): bigint => n + fee(n);\n",
  'src/modules/billing/domain/fee.ts': 'export const fee = (n: bigint): bigint => n / 20n;\n',
  'src/modules/billing/ports/ledger.ts': 'export abstract class Ledger {\n  abstract add(n: bigint): void;\n}\n',
  'src/modules/billing/application/charge.ts':
    "import { cost } from '../domain/cost';\nimport type { Ledger } from '../ports/ledger';\nexport const charge = (ledger: Ledger, n: bigint): void => ledger.add(cost(n));\n",
  'src/modules/billing/http/charge.controller.ts': "import { charge } from '../application/charge';\nexport const controller = charge;\n",
  'src/modules/billing/billing.module.ts': "import { Module } from '@nestjs/common';\nimport { controller } from './http/charge.controller';\nexport const billing = [Module, controller];\n",
  'src/adapters/postgres/repo.ts':
    "import { Injectable } from '@nestjs/common';\nimport { cost } from '../../modules/billing/domain/cost';\nimport { Ledger } from '../../modules/billing/ports/ledger';\nexport const repo = [Injectable, cost, Ledger];\n",
  'src/modules/orders/domain/order.ts': "import { cost } from '../../billing/domain/cost';\nexport const order = (n: bigint): bigint => cost(n);\n",
  'src/http/edge.ts': "import { Injectable } from '@nestjs/common';\nexport const edge = Injectable;\n",
  'src/app.module.ts': "import { repo } from './adapters/postgres/repo';\nimport { billing } from './modules/billing/billing.module';\nexport const app = [repo, billing];\n",
  'libs/wire/codec.ts': 'export const encode = (n: bigint): string => n.toString(16);\n',
};

describe('layering check (npm run check:layers)', () => {
  it('passes on a clean tree: pure domain code, infrastructure used from the adapters, adapters chosen by the app module', () => {
    const result = checkLayers(project(cleanTree));
    expect(result.output).toContain('no dependency violations found');
    expect(result.status).toBe(0);
  });

  it('fails on planted violations: a domain importing NestJS, TypeORM, Solana, Redis or an adapter', () => {
    const result = checkLayers(
      project({
        ...cleanTree,
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

  it.each([
    ['modules-import-adapters', 'src/modules/billing/billing.module.ts', "import { repo } from '../../adapters/postgres/repo';\nexport const billing = repo;\n"],
    ['application-imports-http-or-adapters', 'src/modules/billing/application/planted-controller.ts', "import { controller } from '../http/charge.controller';\nexport const f = controller;\n"],
    ['application-imports-http-or-adapters', 'src/modules/billing/application/planted-edge.ts', "import { edge } from '../../../http/edge';\nexport const g = edge;\n"],
    ['application-imports-http-or-adapters', 'src/modules/billing/application/planted-adapter.ts', "import { repo } from '../../../adapters/postgres/repo';\nexport const k = repo;\n"],
    ['adapters-import-module-internals', 'src/adapters/postgres/planted-use-case.ts', "import { charge } from '../../modules/billing/application/charge';\nexport const h = charge;\n"],
    ['adapters-import-module-internals', 'src/adapters/postgres/planted-controller.ts', "import { controller } from '../../modules/billing/http/charge.controller';\nexport const i = controller;\n"],
    ['libs-imports-src', 'libs/wire/planted.ts', "import { cost } from '../../src/modules/billing/domain/cost';\nexport const j = cost;\n"],
    ['no-circular', 'src/modules/billing/domain/fee.ts', "import { cost } from './cost';\nexport const fee = (n: bigint): bigint => (n > 0n ? cost(n - 1n) / 20n : 0n);\n"],
  ])('fails on a planted %s violation: %s', (rule, file, content) => {
    const result = checkLayers(project({ ...cleanTree, [file]: content }));
    expect(result.status).not.toBe(0);
    expect(result.output).toContain(`error ${rule}: ${file}`);
  });

  it('fails on a planted cycle between feature modules, which no file cycle shows: billing importing orders while orders imports billing', () => {
    const result = checkLayers(project({ ...cleanTree, 'src/modules/billing/domain/planted-orders.ts': "import { order } from '../../orders/domain/order';\nexport const l = order;\n" }));
    expect(result.status).not.toBe(0);
    expect(result.output).toContain('error no-module-cycle: billing → orders → billing');
    expect(result.output).toContain('src/modules/billing/domain/planted-orders.ts → src/modules/orders/domain/order.ts');
    expect(result.output).not.toContain('error no-circular');
  });
});
