import Ajv, { type ErrorObject } from 'ajv';
import { parseUsdc } from '../../billing/domain/atomic-usdc';
import type { ProviderName } from '../../providers/domain/provider-name';
import { Catalog, PROFILES, TIERS, type CatalogModel, type Profile, type ProfileTable, type Tier } from './catalog';
import { CATALOG_SCHEMA, type CatalogFile } from './catalog-schema';

/** A catalog that cannot be used; the message names the entry at fault. */
export class CatalogError extends Error {
  override name = 'CatalogError';
}

const validateShape = new Ajv({ allErrors: false, strict: true }).compile<CatalogFile>(CATALOG_SCHEMA);

/** Validates a parsed catalog file (shape, then cross-references) and builds the Catalog. */
export function parseCatalog(raw: unknown): Catalog {
  if (!validateShape(raw)) throw new CatalogError(describe(raw, (validateShape.errors ?? [])[0]));
  const file = raw;
  const released = releaseDate(file.version);

  const models = new Map<string, CatalogModel>();
  file.models.forEach((entry, index) => {
    const where = `models[${index}] (${entry.id})`;
    if (models.has(entry.id)) throw new CatalogError(`${where}: duplicate model id`);
    if (entry.max_output > entry.context_window) throw new CatalogError(`${where}: max_output exceeds context_window`);
    const rates = {
      inputAtomicPerMillion: parseUsdc(entry.input_per_million) as bigint,
      outputAtomicPerMillion: parseUsdc(entry.output_per_million) as bigint,
    };
    models.set(entry.id, {
      id: entry.id,
      provider: entry.id.slice(0, entry.id.indexOf('/')) as ProviderName,
      upstreamModel: entry.upstream_model,
      displayName: entry.display_name,
      inputPerMillion: entry.input_per_million,
      outputPerMillion: entry.output_per_million,
      rates,
      contextWindow: entry.context_window,
      maxOutput: entry.max_output,
      // Every upstream we proxy streams (spec 2.6 still asks for the flag).
      capabilities: { streaming: true, ...entry.capabilities },
      free: rates.inputAtomicPerMillion === 0n && rates.outputAtomicPerMillion === 0n,
    });
  });

  const lookup = (id: string, where: string): CatalogModel => {
    const model = models.get(id);
    if (!model) throw new CatalogError(`${where}: unknown model ${id}`);
    return model;
  };

  const taken = new Set<string>(models.keys());
  const claim = (name: string, where: string): void => {
    if (taken.has(name) || (PROFILES as readonly string[]).includes(name)) throw new CatalogError(`${where}: the name ${name} is already taken`);
    taken.add(name);
  };

  const aliases = new Map<string, CatalogModel>();
  for (const [name, target] of Object.entries(file.aliases)) {
    claim(name, `aliases.${name}`);
    aliases.set(name, lookup(target, `aliases.${name}`));
  }

  const profiles = new Map<string, { profile: Profile; table: ProfileTable }>();
  for (const profile of PROFILES) {
    const table = {} as Record<Tier, CatalogModel[]>;
    for (const tier of TIERS) {
      const where = `profiles.${profile}.${tier}`;
      table[tier] = file.profiles[profile][tier].map((id) => lookup(id, where));
      if (profile === 'free' && table[tier].some((model) => !model.free)) {
        throw new CatalogError(`${where}: the free profile may hold only zero-priced models`);
      }
    }
    profiles.set(profile, { profile, table });
  }
  for (const [name, profile] of Object.entries(file.profile_aliases)) {
    claim(name, `profile_aliases.${name}`);
    profiles.set(name, profiles.get(profile as Profile) as { profile: Profile; table: ProfileTable });
  }

  return new Catalog(file.version, released, [...models.values()], aliases, profiles);
}

/** The Unix seconds of the version's date (`2026-11-23` or `2026-11-23.1`), which must be a real day. */
function releaseDate(version: string): number {
  const date = /^(\d{4}-\d{2}-\d{2})(\.\d+)?$/.exec(version)?.[1];
  const ms = date === undefined ? Number.NaN : Date.parse(`${date}T00:00:00Z`);
  // Date.parse rolls 2026-02-31 over into March: a day that does not come back as written is not one.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date) throw new CatalogError(`version: ${version} must be a date, YYYY-MM-DD, optionally followed by .<n>`);
  return ms / 1000;
}

/** One line naming the entry: `models[3] (openai/gpt-4o): input_per_million must match ...`. */
function describe(raw: unknown, error: ErrorObject | undefined): string {
  if (!error) return 'invalid catalog';
  const path = error.instancePath.split('/').slice(1);
  let where = path.length === 0 ? 'catalog' : path.map((part, i) => (/^\d+$/.test(part) && i > 0 ? `[${part}]` : `${i > 0 ? '.' : ''}${part}`)).join('');
  if (path[0] === 'models' && path[1] !== undefined) {
    const id = (raw as { models: Array<{ id?: unknown }> }).models[Number(path[1])]?.id;
    if (typeof id === 'string') where = where.replace(`models[${path[1]}]`, `models[${path[1]}] (${id})`);
  }
  const detail =
    error.keyword === 'additionalProperties'
      ? `unknown field ${String(error.params.additionalProperty)}`
      : error.keyword === 'required'
        ? `missing field ${String(error.params.missingProperty)}`
        : (error.message ?? 'is invalid');
  return `${where}: ${detail}`;
}
