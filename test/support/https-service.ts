import { writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tempDir } from './gateway-harness';
import { createTestCa, type TestCaNames } from './test-ca';

export interface SeenRequest {
  path: string;
  body: string;
}

/** A registered service stand-in: https on loopback behind a throw-away CA (GW_EXTRA_CA_FILE). */
export interface HttpsService {
  port: number;
  /** The CA's PEM file, for GW_EXTRA_CA_FILE. */
  caFile: string;
  /** Every request, in arrival order, read in full. */
  seen: SeenRequest[];
  close(): void;
}

/** Starts the service; `answer` writes the reply to each request once its body has arrived. */
export async function startHttpsService(answer: (request: SeenRequest, res: ServerResponse) => void, names?: TestCaNames): Promise<HttpsService> {
  const ca = createTestCa(names);
  const caFile = join(tempDir(), 'ca.pem');
  writeFileSync(caFile, ca.caPem);
  const seen: SeenRequest[] = [];
  const server: Server = createServer({ key: ca.keyPem, cert: ca.certPem }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { path: req.url ?? '/', body: Buffer.concat(chunks).toString('utf8') };
      seen.push(request);
      answer(request, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, caFile, seen, close: () => server.close() };
}
