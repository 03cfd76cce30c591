import type { GatewayConfig } from '../../../config/gateway-config';
import { SsrfGuard } from './ssrf-guard';
import { HostResolver } from '../ports/host-resolver';

/** Resolves nothing: every literal must be judged on its face, names refused as unresolvable. */
class NoNames extends HostResolver {
  async resolve(): Promise<string[]> {
    return [];
  }
}

const guard = new SsrfGuard(new NoNames(), { tools: { ssrfAllowCidrs: [] } } as unknown as GatewayConfig);

async function verdict(endpoint: string): Promise<string> {
  try {
    const target = await guard.check(endpoint);
    return `ALLOWED ${target.address}`;
  } catch (err) {
    return 'refused';
  }
}

describe('SSRF literal forms (spec 8): every spelling of a refused address is refused', () => {
  const endpoints = [
    'https://2130706433/',
    'https://0x7f.1/',
    'https://017700000001/',
    'https://0x7f000001/',
    'https://127.1/',
    'https://0/',
    'https://[::ffff:7f00:1]/',
    'https://[0:0:0:0:0:ffff:127.0.0.1]/',
    'https://[::127.0.0.1]/',
    'https://[64:ff9b::7f00:1]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://evil.example@127.0.0.1/',
    'https://127.0.0.1:443@evil.example/',
    'https://[FE80::1]/',
    'https://169.254.169.254./',
    'https://0251.0376.0251.0376/',
  ];
  it.each(endpoints)('%s', async (endpoint) => {
    expect(await verdict(endpoint)).toBe('refused');
  });
});

describe('SSRF: IPv6 forms that embed or route to a refused IPv4 address (SIIT ::ffff:0:0:0/96, 6to4 2002::/16), Teredo and deprecated site-local fec0::/10 are refused', () => {
  it.each(['https://[::ffff:0:7f00:1]/', 'https://[2002:7f00:1::]/', 'https://[2002:a9fe:a9fe::]/', 'https://[fec0::1]/', 'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/'])(
    '%s',
    async (endpoint) => {
      expect(await verdict(endpoint)).toBe('refused');
    },
  );
});
