import { createServer, type Server } from 'node:http';

/**
 * A minimal Solana JSON-RPC endpoint for health tests: answers `getVersion`, or holds every request
 * unanswered when `stall` is set. (The full local chain for payments is libs/solana-localnet.)
 */
export async function startFakeRpc(options: { stall?: boolean } = {}): Promise<{ url: string; requests: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server: Server = createServer((req, res) => {
    count += 1;
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (options.stall) return;
      const { id } = JSON.parse(body) as { id: unknown };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result: { 'solana-core': '2.1.0', 'feature-set': 1 } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => count,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
