import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createTestCa, type TestCa } from '../../../test/support/test-ca';
import { closedPort } from '../../../test/support/network';
import { ServiceCallFailed, type PinnedTarget } from '../../modules/tools/ports/service-caller';
import { PinnedHttpsServiceCaller } from './pinned-https-service-caller';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  servername: string | false;
}

describe('PinnedHttpsServiceCaller', () => {
  let ca: TestCa;
  let server: Server;
  let port: number;
  let seen: Seen[];
  let handler: (req: IncomingMessage, res: ServerResponse) => void;

  beforeAll(async () => {
    ca = createTestCa();
    server = createServer({ cert: ca.certPem, key: ca.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const servername = (req.socket as unknown as { servername?: string | false }).servername ?? false;
        seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), servername });
        handler(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    seen = [];
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"ok":true}');
    };
  });

  const caller = (options: Partial<ConstructorParameters<typeof PinnedHttpsServiceCaller>[0]> = {}): PinnedHttpsServiceCaller =>
    new PinnedHttpsServiceCaller({ timeoutMs: 5000, extraCaPem: ca.caPem, ...options });
  const target = (host: string, path = '/v1/run?x=1'): PinnedTarget => ({ url: new URL(`https://${host}:${port}${path}`), address: '127.0.0.1' });
  const failure = async (promise: Promise<unknown>): Promise<ServiceCallFailed> => {
    const error = await promise.then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ServiceCallFailed);
    return error as ServiceCallFailed;
  };

  it('POSTs the body as JSON and returns the reply', async () => {
    const reply = await caller().post(target('localhost'), Buffer.from('{"q":"hi"}'), new AbortController().signal);

    expect(reply).toEqual({ status: 200, contentType: 'application/json', body: Buffer.from('{"ok":true}') });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/v1/run?x=1', body: '{"q":"hi"}' });
    expect(seen[0].headers).toMatchObject({ host: `localhost:${port}`, 'content-type': 'application/json', accept: 'application/json' });
    expect(seen[0].headers['user-agent']).toEqual(expect.any(String));
    expect(seen[0].headers.cookie).toBeUndefined();
    expect(seen[0].headers.authorization).toBeUndefined();
  });

  it('connects to the pinned address without resolving the name, and checks the certificate for the name', async () => {
    // service.test resolves nowhere: only the pinned 127.0.0.1 can have reached the server.
    const reply = await caller().post(target('service.test'), Buffer.from('{}'), new AbortController().signal);

    expect(reply.status).toBe(200);
    expect(seen[0].servername).toBe('service.test');
    expect(seen[0].headers.host).toBe(`service.test:${port}`);
  });

  it('refuses a certificate that does not name the URL host, although it is valid for the address', async () => {
    const error = await failure(caller().post(target('other.test'), Buffer.from('{}'), new AbortController().signal));

    expect(error.reason).toBe('network');
    expect(error.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
    expect(seen).toHaveLength(0);
  });

  it('does not trust a certificate of an unknown CA', async () => {
    const error = await failure(caller({ extraCaPem: null }).post(target('localhost'), Buffer.from('{}'), new AbortController().signal));

    expect(error.reason).toBe('network');
    expect(error.message).toMatch(/^the service could not be reached \([A-Z0-9_]+\)$/);
    expect(seen).toHaveLength(0);
  });

  it('returns a redirect as it is, without following it', async () => {
    handler = (_req, res) => {
      res.writeHead(302, { Location: `https://localhost:${port}/elsewhere`, 'Content-Type': 'text/plain' });
      res.end('moved');
    };

    const reply = await caller().post(target('localhost'), Buffer.from('{}'), new AbortController().signal);

    expect(reply).toEqual({ status: 302, contentType: 'text/plain', body: Buffer.from('moved') });
    expect(seen).toHaveLength(1);
  });

  it('times out a service that answers too slowly', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"partial":');
      // The rest never comes: the timeout must cover the whole reply, not only its start.
    };

    const error = await failure(caller({ timeoutMs: 300 }).post(target('localhost'), Buffer.from('{}'), new AbortController().signal));

    expect(error.reason).toBe('timeout');
  });

  it('stops reading a reply larger than the limit', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      // Chunked, without Content-Length: the limit must hold while reading, not only on the header.
      res.write(Buffer.alloc(600, 'a'));
      res.end(Buffer.alloc(600, 'a'));
    };

    const error = await failure(caller({ maxReplyBytes: 1000 }).post(target('localhost'), Buffer.from('{}'), new AbortController().signal));

    expect(error.reason).toBe('too-large');
  });

  it('refuses a reply whose declared length exceeds the limit', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': '2000' });
      res.end(Buffer.alloc(2000, 'a'));
    };

    const error = await failure(caller({ maxReplyBytes: 1000 }).post(target('localhost'), Buffer.from('{}'), new AbortController().signal));

    expect(error.reason).toBe('too-large');
  });

  it('gives up when the signal aborts', async () => {
    handler = () => undefined;
    const controller = new AbortController();

    const call = caller().post(target('localhost'), Buffer.from('{}'), controller.signal);
    setTimeout(() => controller.abort(), 100);
    const error = await failure(call);

    expect(error.reason).toBe('aborted');
  });

  it('does not start when the signal has already aborted', async () => {
    const error = await failure(caller().post(target('localhost'), Buffer.from('{}'), AbortSignal.abort()));

    expect(error.reason).toBe('aborted');
    expect(seen).toHaveLength(0);
  });

  it('reports a refused connection as a network failure', async () => {
    const closed = await closedPort();

    const error = await failure(caller().post({ url: new URL(`https://localhost:${closed}/`), address: '127.0.0.1' }, Buffer.from('{}'), new AbortController().signal));

    expect(error).toMatchObject({ reason: 'network', message: 'the service could not be reached (ECONNREFUSED)' });
  });
});
