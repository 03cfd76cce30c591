/**
 * Layering rules (docs/decisions.md, "Tooling" and "Adapters chosen per technology"), run by
 * `npm run check:layers` (scripts/check-layers.mjs, which also checks cycles between feature
 * modules) inside `npm test`. Domain code is pure TypeScript: no framework, ORM,
 * chain, cache or HTTP library, and nothing from the adapters or the HTTP edge. Feature modules
 * reach technology only through their ports: the adapters are chosen in src/app.module.ts. Test
 * files are exempt (they may use test tooling and wire adapters by hand).
 */
const INFRASTRUCTURE = ['@nestjs', 'typeorm', 'pg', '@electric-sql', '@solana', 'ioredis', 'redis', 'express', 'body-parser', 'pino', 'prom-client'];
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
      comment: 'src/modules/*/domain must not reach the adapters, the HTTP edge, config or the core module.',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/domain/' },
      to: { path: '^src/(adapters|http|config|core|logging)/' },
    },
    {
      name: 'modules-import-adapters',
      comment: 'src/modules declare the ports they need; which adapter implements them is chosen in src/app.module.ts.',
      severity: 'error',
      from: { path: '^src/modules/' },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'application-imports-http-or-adapters',
      comment: 'Use cases are called by the HTTP layer, not the other way round, and reach technology only through ports.',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/application/' },
      to: { path: '^src/(adapters|http|modules/[^/]+/http)/' },
    },
    {
      name: 'adapters-import-module-internals',
      comment: "An adapter implements ports: it may use a module's ports and domain types, never its use cases, HTTP code or Nest wiring.",
      severity: 'error',
      from: { path: '^src/adapters/' },
      to: { path: '^src/modules/', pathNot: '^src/modules/[^/]+/(ports|domain)/' },
    },
    {
      name: 'no-circular',
      comment: 'Files must not import one another round in a circle: a cycle means neither can be read, tested or moved alone. Cycles between feature modules are checked by scripts/check-layers.mjs.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'libs-imports-src',
      comment: 'libs/ is code shared by the gateway, its clients and tests (libs/README.md): it must not depend on the gateway.',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^src/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    exclude: { path: '\\.(spec|int-spec|e2e-spec)\\.ts$' },
  },
};
