import { DnsHostResolver } from '../../../adapters/tools/dns-host-resolver';
import type { GatewayConfig } from '../../../config/gateway-config';
import { GatewayError } from '../../../errors/gateway-error';
import { HostResolver } from '../ports/host-resolver';
import { SsrfGuard } from './ssrf-guard';

/** Answers from a table the test can change between calls, and counts the questions. */
class FakeResolver extends HostResolver {
  readonly asked: string[] = [];
  constructor(public answers: Record<string, string[] | Error>) {
    super();
  }

  resolve(hostname: string): Promise<string[]> {
    this.asked.push(hostname);
    const answer = this.answers[hostname] ?? [];
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  }
}

function guard(resolver: HostResolver, ssrfAllowCidrs: string[] = []): SsrfGuard {
  return new SsrfGuard(resolver, { tools: { ssrfAllowCidrs } } as unknown as GatewayConfig);
}

async function refusal(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GatewayError);
  expect(error).toMatchObject({ code: 'services.endpoint_refused', type: 'bad_request' });
  return error as GatewayError;
}

describe('SsrfGuard', () => {
  it('pins a public name to its first address', async () => {
    const resolver = new FakeResolver({ 'api.example.com': ['93.184.216.34', '2606:2800:220:1::'] });

    const target = await guard(resolver).check('https://api.example.com/v1/run');

    expect(target.url.href).toBe('https://api.example.com/v1/run');
    expect(target.address).toBe('93.184.216.34');
    expect(resolver.asked).toEqual(['api.example.com']);
  });

  it('refuses a name whose records mix a public and a private address', async () => {
    const resolver = new FakeResolver({ 'mixed.example': ['93.184.216.34', '10.0.0.5'] });

    const error = await refusal(guard(resolver).check('https://mixed.example/'));

    expect(error.message).toBe('endpoint host mixed.example is refused: 10.0.0.5 is in 10.0.0.0/8 (private)');
  });

  it('refuses a name that does not resolve', async () => {
    const error = await refusal(guard(new FakeResolver({})).check('https://nothing.example/'));

    expect(error.message).toBe('endpoint host nothing.example does not resolve');
  });

  it('refuses when the resolver fails, without its details', async () => {
    const resolver = new FakeResolver({ 'flaky.example': new Error('connect to 10.1.2.3:53 failed: secret-ish detail') });

    const error = await refusal(guard(resolver).check('https://flaky.example/'));

    expect(error.message).toBe('endpoint host flaky.example could not be resolved');
  });

  it('refuses an endpoint that is not https before resolving anything', async () => {
    const resolver = new FakeResolver({ 'api.example.com': ['93.184.216.34'] });

    const error = await refusal(guard(resolver).check('http://api.example.com/'));

    expect(error.message).toBe('endpoint must be an https URL');
    expect(resolver.asked).toEqual([]);
  });

  it('judges an IP literal itself, without asking the resolver', async () => {
    const resolver = new FakeResolver({ '::ffff:7f00:1': ['8.8.8.8'] });

    const error = await refusal(guard(resolver).check('https://[::ffff:127.0.0.1]/x'));

    expect(error.message).toBe('endpoint host ::ffff:7f00:1 is refused: ::ffff:7f00:1 stands for 127.0.0.1, which is in 127.0.0.0/8 (loopback)');
    expect(resolver.asked).toEqual([]);
    await expect(guard(resolver).check('https://8.8.8.8/x')).resolves.toMatchObject({ address: '8.8.8.8' });
  });

  it('refuses localhost as the real resolver answers it', async () => {
    const error = await refusal(guard(new DnsHostResolver()).check('https://localhost/'));

    expect(error.message).toMatch(/^endpoint host localhost is refused: .*\(loopback\)$/);
  });

  it('checks again on every call, so a name re-pointed after registration is refused', async () => {
    const resolver = new FakeResolver({ 'rebind.example': ['93.184.216.34'] });
    const ssrf = guard(resolver);

    await expect(ssrf.check('https://rebind.example/')).resolves.toMatchObject({ address: '93.184.216.34' });
    resolver.answers['rebind.example'] = ['169.254.169.254'];
    const error = await refusal(ssrf.check('https://rebind.example/'));

    expect(error.message).toBe('endpoint host rebind.example is refused: 169.254.169.254 is in 169.254.0.0/16 (link-local)');
  });

  it('lets the test allow list through', async () => {
    const resolver = new FakeResolver({ 'service.test': ['127.0.0.1'], 'other.test': ['127.0.0.2'] });
    const ssrf = guard(resolver, ['127.0.0.1/32']);

    await expect(ssrf.check('https://service.test:8443/x')).resolves.toMatchObject({ address: '127.0.0.1' });
    await refusal(ssrf.check('https://other.test/'));
  });

  it('cuts a long host name in its message', async () => {
    const host = `${'a'.repeat(60)}.${'b'.repeat(60)}.example`;

    const error = await refusal(guard(new FakeResolver({})).check(`https://${host}/`));

    expect(error.message).toBe(`endpoint host ${host.slice(0, 100)}... does not resolve`);
  });
});
