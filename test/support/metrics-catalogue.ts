import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** One row of the README's metrics table. */
export interface CatalogueEntry {
  name: string;
  type: string;
  labels: string;
  meaning: string;
}

/**
 * Rows whose meaning carries one of these marks are registered only when escrow is configured
 * (escrow-claim-processor.ts) or channels are on (channel-worker.ts), so a gateway without them
 * does not export them.
 */
const CONFIGURED_ONLY = ['(escrow only)', '(channels only)'];

/** Whether a gateway exports the row's metric only when escrow or channels are on. */
export function configuredOnly(entry: CatalogueEntry): boolean {
  return CONFIGURED_ONLY.some((mark) => entry.meaning.includes(mark));
}

/** The Prometheus naming rule the catalogue holds every metric to (README.md, "Metrics"). */
export const METRIC_NAME = /^gw_[a-z]+_[a-z0-9_]+$/;

/** The `| Metric | Type | Labels | Meaning |` table of README.md's "## Metrics" section, by metric name. */
export function readmeCatalogue(): Map<string, CatalogueEntry> {
  const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Metrics\n');
  if (start < 0) throw new Error('README.md has no "## Metrics" section');
  const next = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, next < 0 ? undefined : next);
  const entries = new Map<string, CatalogueEntry>();
  for (const line of section.split('\n')) {
    const cells = /^\|\s*`([^`]+)`\s*\|([^|]*)\|([^|]*)\|(.*)\|\s*$/.exec(line);
    if (!cells) continue;
    const [, name, type, labels, meaning] = cells;
    if (entries.has(name)) throw new Error(`README.md lists ${name} twice`);
    entries.set(name, { name, type: type.trim(), labels: labels.trim(), meaning: meaning.trim() });
  }
  return entries;
}

/** The metric families a Prometheus text exposition declares (its `# TYPE` lines), with their types. */
export function exposedMetrics(text: string): Map<string, string> {
  const families = new Map<string, string>();
  for (const match of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) families.set(match[1], match[2]);
  return families;
}
