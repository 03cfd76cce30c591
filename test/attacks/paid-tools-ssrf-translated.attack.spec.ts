import type { GatewayConfig } from '../../src/config/gateway-config';
import { SsrfGuard } from '../../src/modules/tools/application/ssrf-guard';
import { HostResolver } from '../../src/modules/tools/ports/host-resolver';

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

describe('SSRF: IPv6 forms that embed or route to a refused IPv4 address (SIIT ::ffff:0:0/96, 6to4 2002::/16) and deprecated site-local fec0::/10 are refused', () => {
  const endpoints = ['https://[::ffff:0:7f00:1]/', 'https://[2002:7f00:1::]/', 'https://[2002:a9fe:a9fe::]/', 'https://[fec0::1]/'];
  it.each(endpoints)('%s', async (endpoint) => {
    expect(await verdict(endpoint)).toBe('refused');
  });
});
