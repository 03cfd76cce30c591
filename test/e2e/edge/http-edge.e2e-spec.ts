import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { RunningGateway } from '../../../src/gateway';
import { startTestGateway } from '../../support/gateway-harness';
import { TestRoutesModule } from '../../support/test-routes.module';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TEN_MB = 10 * 1024 * 1024;

function expectEdgeHeaders(res: Response): void {
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  expect(res.headers.get('content-security-policy')).toBe("default-src 'none'");
  expect(res.headers.get('x-gw-request-id')).toMatch(UUID);
}

async function expectEnvelope(res: Response, status: number, type: string, code: string): Promise<string> {
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await res.json()) as { error: { type: string; message: string; code: string } };
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.type).toBe(type);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  return body.error.message;
}

/** A raw HTTP/1.1 GET with arbitrary headers (fetch refuses some we need to send). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'GET', headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTP edge (development)', () => {
  let gateway: RunningGateway;
  let url: string;

  beforeAll(async () => {
    gateway = await startTestGateway({}, { imports: [TestRoutesModule] });
    url = gateway.url;
  });
  afterAll(() => gateway.close());

  describe('security headers and request id on every response', () => {
    it('200', async () => {
      const res = await fetch(`${url}/health`);
      expect(res.status).toBe(200);
      expectEdgeHeaders(res);
      expect(res.headers.get('strict-transport-security')).toBeNull();
    });

    it('400', async () => {
      const res = await fetch(`${url}/test/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":' });
      expectEdgeHeaders(res);
      expect(await expectEnvelope(res, 400, 'bad_request', 'request.malformed_json')).toBe('malformed JSON body');
    });

    it('404', async () => {
      const res = await fetch(`${url}/no/such/route?x=1`);
      expectEdgeHeaders(res);
      expect(await expectEnvelope(res, 404, 'not_found', 'route.not_found')).toBe('route not found: GET /no/such/route');
    });

    it('413', async () => {
      const res = await fetch(`${url}/test/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pad: 'x'.repeat(TEN_MB) }),
      });
      expectEdgeHeaders(res);
      expect(await expectEnvelope(res, 413, 'payload_too_large', 'request.body_too_large')).toBe(`request body exceeds ${TEN_MB} bytes`);
    });

    it('gives each response its own request id', async () => {
      const ids = await Promise.all([1, 2, 3].map(() => fetch(`${url}/health/live`).then((res) => res.headers.get('x-gw-request-id'))));
      expect(new Set(ids).size).toBe(3);
    });
  });

  describe('error envelope for framework errors', () => {
    it('malformed JSON is 400 bad_request', async () => {
      const res = await fetch(`${url}/test/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json}' });
      await expectEnvelope(res, 400, 'bad_request', 'request.malformed_json');
    });

    it('a JSON scalar body (not an object or array) is 400 bad_request', async () => {
      const res = await fetch(`${url}/test/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '"text"' });
      await expectEnvelope(res, 400, 'bad_request', 'request.malformed_json');
    });

    it('an unknown route is 404 not_found, whatever the method', async () => {
      const res = await fetch(`${url}/v1/nothing`, { method: 'DELETE' });
      await expectEnvelope(res, 404, 'not_found', 'route.not_found');
    });

    it('a non-JSON content type on a JSON route is 415 unsupported_media_type', async () => {
      const res = await fetch(`${url}/test/echo`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
      expect(await expectEnvelope(res, 415, 'unsupported_media_type', 'request.unsupported_content_type')).toBe('Content-Type must be application/json');
    });

    it('a body without any content type is 415', async () => {
      const res = await fetch(`${url}/test/echo`, { method: 'POST', body: new Uint8Array([123, 125]) });
      await expectEnvelope(res, 415, 'unsupported_media_type', 'request.unsupported_content_type');
    });

    it('a non-UTF-8 charset is 415', async () => {
      const res = await fetch(`${url}/test/echo`, { method: 'POST', headers: { 'content-type': 'application/json; charset=latin1' }, body: '{}' });
      await expectEnvelope(res, 415, 'unsupported_media_type', 'request.unsupported_charset');
    });

    it('an unexpected error is 500 internal_error with no detail of it', async () => {
      const res = await fetch(`${url}/test/boom`);
      const text = await res.clone().text();
      expect(await expectEnvelope(res, 500, 'internal_error', 'server.internal_error')).toBe('internal error');
      expect(text).not.toMatch(/hunter2|secret\.ts|at /);
    });

    it('never answers with HTML', async () => {
      for (const path of ['/', '/%', '/test/echo']) {
        const res = await fetch(`${url}${path}`);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await res.text()).not.toMatch(/<html|<pre/i);
      }
    });
  });

  describe('request bodies', () => {
    it('keeps the exact raw bytes for handlers and parses the JSON', async () => {
      const raw = '{ "b" : 2,\n  "a": "é" }';
      const res = await fetch(`${url}/test/echo`, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8' }, body: raw });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ sha256: createHash('sha256').update(raw, 'utf8').digest('hex'), body: { b: 2, a: 'é' } });
    });

    it('accepts bodies up to the 10 MB default', async () => {
      const body = JSON.stringify({ pad: 'x'.repeat(TEN_MB - 20) });
      const res = await fetch(`${url}/test/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      expect(res.status).toBe(200);
    });

    it('applies a per-route limit', async () => {
      const small = await fetch(`${url}/test/small`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(900) }) });
      expect(small.status).toBe(200);
      const large = await fetch(`${url}/test/small`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ pad: 'x'.repeat(1100) }) });
      expect(await expectEnvelope(large, 413, 'payload_too_large', 'request.body_too_large')).toBe('request body exceeds 1024 bytes');
    });

    it('accepts application/*+json', async () => {
      const res = await fetch(`${url}/test/echo`, { method: 'POST', headers: { 'content-type': 'application/merge-patch+json' }, body: '{"x":1}' });
      expect(res.status).toBe(200);
    });
  });

  describe('request headers', () => {
    it('accepts 60 KB of headers (a 50 KB payment header fits)', async () => {
      const res = await rawGet(`${url}/health/live`, { 'payment-signature': 'A'.repeat(50 * 1024), 'x-pad': 'B'.repeat(9 * 1024) });
      expect(res.status).toBe(200);
    });

    it('answers headers past 64 KB with 431 in the envelope, with the edge headers', async () => {
      const res = await rawGet(`${url}/health/live`, { 'x-pad': 'B'.repeat(70 * 1024) });
      expect(res.status).toBe(431);
      expect(JSON.parse(res.body)).toEqual({ error: { type: 'request_header_fields_too_large', message: 'request headers exceed 65536 bytes', code: 'request.headers_too_large', param: null } });
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-gw-request-id']).toMatch(UUID);
    });
  });

  describe('client identity', () => {
    it('is the TCP peer; X-Forwarded-For is ignored', async () => {
      const plain = await (await fetch(`${url}/test/identity`)).json();
      const spoofed = await (await fetch(`${url}/test/identity`, { headers: { 'x-forwarded-for': '203.0.113.9, 198.51.100.7', 'x-real-ip': '203.0.113.9' } })).json();
      expect(plain).toEqual({ client: '127.0.0.1' });
      expect(spoofed).toEqual({ client: '127.0.0.1' });
    });
  });

  describe('CORS', () => {
    const preflight = (origin: string): Promise<Response> =>
      fetch(`${url}/v1/chat/completions`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,payment-signature' },
      });

    it('allows a development origin, with the listed methods and headers', async () => {
      const res = await preflight('http://localhost:3000');
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
      expect(res.headers.get('access-control-allow-methods')).toBe('GET,POST,PUT,PATCH,DELETE,OPTIONS');
      expect(res.headers.get('access-control-allow-headers')).toBe('Content-Type,Authorization,PAYMENT-SIGNATURE,X-Request-Id,X-Session-Id,X-Gw-Debug');
      expectEdgeHeaders(res);
    });

    it('refuses a preflight from another origin with 403 and no CORS headers', async () => {
      const res = await preflight('https://evil.example');
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expectEdgeHeaders(res);
      expect(await expectEnvelope(res, 403, 'forbidden', 'cors.origin_not_allowed')).toBe('CORS origin not allowed');
    });

    it('exposes the payment, receipt, request-id and rate-limit headers to allowed origins', async () => {
      const res = await fetch(`${url}/health`, { headers: { origin: 'http://127.0.0.1:3000' } });
      expect(res.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:3000');
      const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',');
      expect(exposed).toEqual(
        expect.arrayContaining(['PAYMENT-REQUIRED', 'PAYMENT-RESPONSE', 'X-Gw-Receipt', 'X-Gw-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After']),
      );
    });

    it('sends no CORS headers to a disallowed origin on a simple request', async () => {
      const res = await fetch(`${url}/health`, { headers: { origin: 'https://evil.example' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
    });
  });
});

describe('HTTP edge (production)', () => {
  let gateway: RunningGateway;

  beforeAll(async () => {
    gateway = await startTestGateway({ GW_ENV: 'production', GW_CORS_ORIGINS: 'https://app.example.com' });
  });
  afterAll(() => gateway.close());

  it('adds HSTS to every response, errors included', async () => {
    for (const path of ['/health', '/missing']) {
      const res = await fetch(`${gateway.url}${path}`);
      expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
      expectEdgeHeaders(res);
    }
  });

  it('allows only the configured origins', async () => {
    const headers = (origin: string) => ({ origin, 'access-control-request-method': 'POST' });
    const allowed = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'OPTIONS', headers: headers('https://app.example.com') });
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://app.example.com');
    const development = await fetch(`${gateway.url}/v1/chat/completions`, { method: 'OPTIONS', headers: headers('http://localhost:3000') });
    expect(development.status).toBe(403);
  });
});
