import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './env-reader';
import { loadConfig } from './load-config';

const WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const dir = (): string => mkdtempSync(join(tmpdir(), 'gw-tools-config-'));
const base = (): Record<string, string> => ({ GW_DATA_DIR: dir(), GW_RECIPIENT_WALLET: WALLET });
const tools = (env: Record<string, string>) => loadConfig({ ...base(), ...env }).config.tools;

function refusal(env: Record<string, string>): string {
  try {
    loadConfig({ ...base(), ...env });
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected a ConfigError');
}

function file(content: string): string {
  const path = join(dir(), 'file');
  writeFileSync(path, content);
  return path;
}

describe('the tools configuration', () => {
  it('defaults: the public upstreams, no search key, 10 s, the repo registry, no SSRF escape hatches', () => {
    const config = tools({});
    expect(config).toMatchObject({ searchBaseUrl: 'https://api.tavily.com', searchApiKey: null, priceBaseUrl: 'https://lite-api.jup.ag', timeoutMs: 10_000, ssrfAllowCidrs: [], extraCaPem: null });
    expect(config.services.map((entry) => [entry.id, entry.priceAtomic])).toEqual([
      ['token-price', 1_000n],
      ['web-search', 10_000n],
    ]);
  });

  it('reads GW_SERVICES_FILE, GW_SSRF_ALLOW_CIDRS and GW_EXTRA_CA_FILE outside production', () => {
    const services = file(
      JSON.stringify({ services: [{ id: 'token-price', name: 'Prices', category: 'data', endpoint: '/v1/solana/price', x402_enabled: true, internal: true, price_per_request_usdc: '0.5' }] }),
    );
    const config = tools({ GW_SERVICES_FILE: services, GW_SSRF_ALLOW_CIDRS: '127.0.0.1/32, ::1/128', GW_EXTRA_CA_FILE: file('PEM'), GW_TOOL_TIMEOUT_SECS: '3' });
    expect(config.services).toEqual([expect.objectContaining({ id: 'token-price', priceAtomic: 500_000n, source: 'config' })]);
    expect(config).toMatchObject({ ssrfAllowCidrs: ['127.0.0.1/32', '::1/128'], extraCaPem: 'PEM', timeoutMs: 3_000 });
  });

  it('refuses the SSRF escape hatches in production', () => {
    expect(refusal({ GW_ENV: 'production', GW_SSRF_ALLOW_CIDRS: '127.0.0.1/32' })).toMatch(/test-only and refused when GW_ENV=production/);
    expect(refusal({ GW_ENV: 'production', GW_EXTRA_CA_FILE: file('PEM') })).toMatch(/test-only/);
  });

  it('stops the start on a bad CIDR, an unreadable or malformed registry file, or a bad entry, naming it', () => {
    expect(refusal({ GW_SSRF_ALLOW_CIDRS: '127.0.0.1/33' })).toMatch(/GW_SSRF_ALLOW_CIDRS: "127.0.0.1\/33" is not a CIDR/);
    expect(refusal({ GW_SSRF_ALLOW_CIDRS: 'localhost/8' })).toMatch(/not a CIDR/);
    expect(refusal({ GW_SERVICES_FILE: '/nonexistent/services.json' })).toMatch(/GW_SERVICES_FILE: cannot read/);
    expect(refusal({ GW_SERVICES_FILE: file('{') })).toMatch(/GW_SERVICES_FILE: .* is not JSON/);
    expect(refusal({ GW_SERVICES_FILE: file(JSON.stringify({ services: [{ id: 'Bad' }] })) })).toMatch(/^GW_SERVICES_FILE .*: services\[0\]/);
    expect(refusal({ GW_EXTRA_CA_FILE: '/nonexistent/ca.pem' })).toMatch(/GW_EXTRA_CA_FILE: cannot read/);
  });
});
