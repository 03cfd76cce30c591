import { readFileSync } from 'node:fs';
import defaultServices from '../../catalog/services.json';
import type { ServiceEntry } from '../modules/tools/domain/service-entry';
import { parseServicesFile, ServicesFileError } from '../modules/tools/domain/services-file';
import { ConfigError, type EnvReader } from './env-reader';
import type { GatewayEnv, ToolsConfig } from './gateway-config';

const TAVILY_BASE_URL = 'https://api.tavily.com';
const JUPITER_BASE_URL = 'https://lite-api.jup.ag';

/** The paid tools' upstreams, the service registry file and the SSRF guard's test-only escape hatches. */
export function readToolsConfig(read: EnvReader, env: GatewayEnv): ToolsConfig {
  const ssrfAllowCidrs = read.cidrs('GW_SSRF_ALLOW_CIDRS');
  const caFile = read.raw('GW_EXTRA_CA_FILE');
  if (env === 'production' && (ssrfAllowCidrs.length > 0 || caFile !== undefined)) {
    throw new ConfigError('GW_SSRF_ALLOW_CIDRS and GW_EXTRA_CA_FILE are test-only and refused when GW_ENV=production');
  }
  return {
    searchBaseUrl: read.url('GW_SEARCH_BASE_URL', TAVILY_BASE_URL),
    searchApiKey: read.secret('GW_SEARCH_API_KEY'),
    priceBaseUrl: read.url('GW_PRICE_BASE_URL', JUPITER_BASE_URL),
    timeoutMs: read.integer('GW_TOOL_TIMEOUT_SECS', 10, { min: 1, max: 120 }) * 1000,
    services: readServices(read),
    ssrfAllowCidrs,
    extraCaPem: caFile === undefined ? null : readText('GW_EXTRA_CA_FILE', caFile),
  };
}

/** The repo's registry, or the operator's own file (GW_SERVICES_FILE); a bad entry stops the start, named. */
function readServices(read: EnvReader): readonly ServiceEntry[] {
  const path = read.raw('GW_SERVICES_FILE');
  let raw: unknown = defaultServices;
  if (path !== undefined) {
    try {
      raw = JSON.parse(readText('GW_SERVICES_FILE', path));
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      throw new ConfigError(`GW_SERVICES_FILE: ${path} is not JSON (${(err as Error).message})`);
    }
  }
  try {
    return parseServicesFile(raw);
  } catch (err) {
    if (err instanceof ServicesFileError) throw new ConfigError(`${path === undefined ? 'catalog/services.json' : `GW_SERVICES_FILE ${path}`}: ${err.message}`);
    throw err;
  }
}

function readText(name: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`${name}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}
