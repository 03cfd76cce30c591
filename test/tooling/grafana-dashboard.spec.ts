import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readmeCatalogue } from '../support/metrics-catalogue';

const dashboardPath = join(__dirname, '..', '..', 'docker', 'grafana', 'gateway-dashboard.json');

/** Every `expr` in the dashboard, however deeply its panels nest. */
function expressions(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(expressions);
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) => (key === 'expr' && typeof value === 'string' ? [value] : expressions(value)));
}

/** A histogram's series carry suffixes the catalogue names by family. */
function family(series: string): string {
  return series.replace(/_(bucket|sum|count)$/, '');
}

describe('docker/grafana/gateway-dashboard.json', () => {
  it('queries only metrics in the README catalogue (and so in /metrics: metrics-catalogue.e2e-spec.ts)', () => {
    const exprs = expressions(JSON.parse(readFileSync(dashboardPath, 'utf8')));
    expect(exprs.length).toBeGreaterThan(0);
    const used = new Set(exprs.flatMap((expr) => [...expr.matchAll(/\bgw_[a-z0-9_]+/g)].map(([name]) => family(name))));
    const catalogue = readmeCatalogue();
    expect([...used].filter((name) => !catalogue.has(name))).toEqual([]);
    expect(used.size).toBeGreaterThan(10);
  });
});
