import { request } from 'node:http';
import { Controller, Get, Module, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { Registry } from 'prom-client';
import { MemoryRateLimitStore } from '../../../src/adapters/memory/memory-rate-limit-store';
import type { GatewayConfig } from '../../../src/config/gateway-config';
import type { RunningGateway } from '../../../src/gateway';
import { EnterpriseAuth } from '../../../src/http/enterprise-auth.guard';
import { dtoValidationPipe } from '../../../src/http/dto-validation.pipe';
import { OrgApiKeys, type OrgKeyHolder } from '../../../src/modules/orgs/ports/org-api-keys';
import { ReceiptsController } from '../../../src/modules/payments/http/receipts.controller';
import { RateLimitMetrics } from '../../../src/modules/rate-limits/application/rate-limit-metrics';
import { WINDOW_MS } from '../../../src/modules/rate-limits/application/rate-limiter';
import { RateLimitThrottlerStorage } from '../../../src/modules/rate-limits/http/rate-limit-throttler-storage';
import { RouteRateLimitGuard } from '../../../src/modules/rate-limits/http/route-rate-limit.guard';
import { startTestGateway, TEST_ADMIN_TOKEN } from '../../support/gateway-harness';
import { TestRoutesModule } from '../../support/test-routes.module';

const ORG = '6f1c2a8e-3b4d-4e5f-8a9b-0c1d2e3f4a5b';
const WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

function raw(url: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request({ host: u.hostname, port: u.port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** An org-key store whose database is down. */
class DownOrgApiKeys extends OrgApiKeys {
  findActive(): Promise<OrgKeyHolder | null> {
    return Promise.reject(new Error('connect ECONNREFUSED 10.0.0.5:5432'));
  }
}

@Controller('down-store')
class DownStoreOrgController {
  @Get('orgs/:org_id/reads')
  @EnterpriseAuth('member')
  read(): { ok: true } {
    return { ok: true };
  }
}

@Module({ controllers: [DownStoreOrgController], providers: [{ provide: OrgApiKeys, useClass: DownOrgApiKeys }] })
class DownStoreOrgModule {}

describe('edge defects', () => {
  let gw: RunningGateway;
  beforeAll(async () => {
    gw = await startTestGateway({ GW_ADMIN_TOKEN: TEST_ADMIN_TOKEN }, { imports: [TestRoutesModule, DownStoreOrgModule] });
  });
  afterAll(() => gw.close());

  it('answers an unsupported Expect header in the envelope with a code, not a bare 417', async () => {
    const res = await raw(gw.url, 'GET', '/test/identity', { expect: 'foo' });
    expect(JSON.parse(res.text || '{}')).toMatchObject({ error: { code: expect.any(String) } });
  });

  it('does not echo an unbounded hostile field name back in the 400 message', async () => {
    const res = await raw(gw.url, 'POST', '/test/teams', { 'content-type': 'application/json' }, `{"name":"a","${'k'.repeat(100_000)}":1}`);
    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(1024);
  });

  it.each([['__proto__'], ['constructor'], ['hasOwnProperty']])('refuses the unknown field %s like any other unknown field', async (field) => {
    const res = await raw(gw.url, 'POST', '/test/teams', { 'content-type': 'application/json' }, `{"name":"a","${field}":{"x":1}}`);
    expect(res.status).toBe(400);
  });

  it('refuses a single object where the DTO declares a list (members: TestMember[])', async () => {
    const res = await raw(gw.url, 'POST', '/test/teams', { 'content-type': 'application/json' }, JSON.stringify({ name: 'a', members: { wallet_address: WALLET, role: 'admin' } }));
    expect(res.status).toBe(400);
  });

  it('answers an org-key lookup whose store is down with 503, not a 500 internal error', async () => {
    const res = await raw(gw.url, 'GET', `/down-store/orgs/${ORG}/reads`, { authorization: `Bearer gwk_${'A'.repeat(43)}` });
    expect(res.status).toBe(503);
  });
});

describe('DTO validation cost', () => {
  it('refuses a body of 100k unknown fields in well under a second (class-transformer dedupes keys in O(n^2))', async () => {
    class Team {
      name!: string;
    }
    const body = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, 1]));
    const started = Date.now();
    await dtoValidationPipe()
      .transform(body, { type: 'body', metatype: Team })
      .catch(() => undefined);
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('route limit per IPv6 client', () => {
  it('gives every address of one IPv6 /64 one receipts budget, as clientNetwork does for sponsorship', async () => {
    const storage = new RateLimitThrottlerStorage(new MemoryRateLimitStore(), new RateLimitMetrics(new Registry()));
    const config = { limits: { routeRateLimits: {} } } as unknown as GatewayConfig;
    const guard = new RouteRateLimitGuard({ throttlers: [{ limit: 60, ttl: WINDOW_MS }], storage }, storage, new Reflector(), config);
    await guard.onModuleInit();
    const outcomes: string[] = [];
    for (let n = 1; n <= 42; n += 1) {
      // 21 hits from one address (control: the fake context does count), then 21 from one /64.
      const req = { gw: { clientAddress: n <= 21 ? '2001:db8:9:9::1' : `2001:db8:1:2::${n.toString(16)}` } };
      const res = { setHeader: () => undefined };
      const context = {
        getHandler: () => ReceiptsController.prototype.find,
        getClass: () => ReceiptsController,
        switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }),
      } as unknown as ExecutionContext;
      outcomes.push(
        await guard.canActivate(context).then(
          () => 'ok',
          (e: { code?: string }) => String(e.code),
        ),
      );
    }
    expect(outcomes[20]).toBe('rate_limit.exceeded');
    expect(outcomes[41]).toBe('rate_limit.exceeded');
  });
});
