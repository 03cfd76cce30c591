import { SERVICE_ID, type ServiceEntry } from './service-entry';
import { parseServicePrice, pricingLabel } from './service-price';

/** A registry file that cannot be used; the message names the entry and the field at fault. */
export class ServicesFileError extends Error {
  override name = 'ServicesFileError';
}

/**
 * The fields an entry of the registry file may have (spec 2.7, snake_case). `pricing` is computed
 * from the price and `source` is always `config`, so a file carrying either is refused like any
 * unknown field rather than silently contradicted.
 */
const FIELDS = new Set(['id', 'name', 'category', 'endpoint', 'x402_enabled', 'internal', 'description', 'chains', 'price_per_request_usdc']);
const NAME_MAX = 128;
const CATEGORY_MAX = 64;
const DESCRIPTION_MAX = 1000;
/** A path the gateway serves itself; `//` would read as a host to URL resolution, so it is refused. */
const INTERNAL_PATH = /^\/(?!\/)\S*$/;

/** Validates a parsed registry file (`{ "services": [...] }`) into its entries (source `config`), sorted by id. */
export function parseServicesFile(json: unknown): ServiceEntry[] {
  if (!isRecord(json)) throw new ServicesFileError('the services file must be a JSON object');
  for (const key of Object.keys(json)) if (key !== 'services') throw new ServicesFileError(`the services file has an unknown field ${key}`);
  const services = json.services;
  if (!Array.isArray(services)) throw new ServicesFileError('the services file must have a services array');

  const seen = new Set<string>();
  const entries = services.map((raw: unknown, index) => {
    const entry = parseEntry(raw, index);
    if (seen.has(entry.id)) throw new ServicesFileError(`services[${index}] (${entry.id}): duplicate id`);
    seen.add(entry.id);
    return entry;
  });
  return entries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function parseEntry(raw: unknown, index: number): ServiceEntry {
  if (!isRecord(raw)) throw new ServicesFileError(`services[${index}]: must be an object`);
  const where = typeof raw.id === 'string' ? `services[${index}] (${raw.id})` : `services[${index}]`;
  const fail = (field: string, problem: string): never => {
    throw new ServicesFileError(`${where}: ${field} ${problem}`);
  };
  for (const key of Object.keys(raw)) if (!FIELDS.has(key)) fail('unknown field', key);

  const id = raw.id;
  if (typeof id !== 'string' || !SERVICE_ID.test(id)) fail('id', 'must be 1 to 64 characters of a-z, 0-9 and -');
  const name = text(raw.name, NAME_MAX) ?? fail('name', `must be a non-blank string of at most ${NAME_MAX} characters`);
  const category = text(raw.category, CATEGORY_MAX) ?? fail('category', `must be a non-blank string of at most ${CATEGORY_MAX} characters`);
  if (typeof raw.x402_enabled !== 'boolean') fail('x402_enabled', 'must be a boolean');
  if (typeof raw.internal !== 'boolean') fail('internal', 'must be a boolean');
  const internal = raw.internal as boolean;

  let description: string | null = null;
  if (raw.description !== undefined && raw.description !== null) {
    if (typeof raw.description !== 'string' || codePoints(raw.description) > DESCRIPTION_MAX) fail('description', `must be a string of at most ${DESCRIPTION_MAX} characters, or null`);
    description = raw.description as string;
  }

  if (raw.chains !== undefined && !(Array.isArray(raw.chains) && raw.chains.length === 1 && raw.chains[0] === 'solana')) fail('chains', 'must be ["solana"]');

  const endpoint = raw.endpoint;
  if (typeof endpoint !== 'string') return fail('endpoint', 'must be a string');
  if (internal && !INTERNAL_PATH.test(endpoint)) fail('endpoint', 'of an internal service must be a path starting with /');
  if (!internal && !isHttpsUrl(endpoint)) fail('endpoint', 'of an external service must be an absolute https:// URL');

  const priceAtomic = raw.price_per_request_usdc === undefined ? null : parseServicePrice(raw.price_per_request_usdc);
  if (priceAtomic === undefined) return fail('price_per_request_usdc', 'must be a non-negative number or decimal string with at most 6 decimals, or null');

  return {
    id: id as string,
    name,
    category,
    endpoint,
    x402Enabled: raw.x402_enabled as boolean,
    internal,
    description,
    pricing: pricingLabel(priceAtomic),
    source: 'config',
    priceAtomic,
    createdAt: null,
  };
}

/** A non-blank string of at most `max` characters (code points, as PostgreSQL's char_length counts them). */
function text(value: unknown, max: number): string | null {
  return typeof value === 'string' && value.trim() !== '' && codePoints(value) <= max ? value : null;
}

function codePoints(value: string): number {
  return [...value].length;
}

/** Only the scheme and shape; whether the host may be reached is decided at registration and proxy time. */
function isHttpsUrl(value: string): boolean {
  if (!value.startsWith('https://') || /\s/.test(value)) return false;
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
