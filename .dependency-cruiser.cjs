/**
 * Layering rules (ARCHITECTURE.md section 2), run by `npm run check:layers` inside `npm test`.
 * Domain code is pure TypeScript: no framework, ORM, chain, cache or HTTP library, and nothing
 * from the adapters or the HTTP edge. Test files are exempt (they may use test tooling).
 */
const INFRASTRUCTURE = [
  '@nestjs',
  'typeorm',
  'pg',
  '@electric-sql',
  '@solana',
  'ioredis',
  'redis',
  'express',
  'body-parser',
  'pino',
  'prom-client',
];
const pattern = `(^|node_modules/)(${INFRASTRUCTURE.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})(/|$)`;

module.exports = {
  forbidden: [
    {
      name: 'domain-imports-infrastructure',
      comment: 'src/modules/*/domain must stay pure: no NestJS, TypeORM, Solana, Redis or other infrastructure library.',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/domain/' },
      to: { path: pattern },
    },
    {
      name: 'domain-imports-outer-layers',
      comment: 'src/modules/*/domain must not reach the adapters, the HTTP edge, config or lifecycle.',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/domain/' },
      to: { path: '^src/(adapters|http|config|lifecycle|logging)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    exclude: { path: '\\.(spec|int-spec|e2e-spec)\\.ts$' },
  },
};
