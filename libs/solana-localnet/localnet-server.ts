import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { answerJsonRpc, type RpcHandler } from './json-rpc';

const MAX_BODY_BYTES = 10 * 1024 * 1024;
const PORT_PAIR_ATTEMPTS = 20;
const WEBSOCKET_CLOSE_GRACE_MS = 1000;

export interface RpcEndpoints {
  url: string;
  wsUrl: string;
  close(): Promise<void>;
}

export interface RpcServerOptions {
  host: string;
  /** The HTTP port; 0 picks a free one. */
  port: number;
  handle: RpcHandler;
  /** Serves one websocket connection; returns its clean-up. */
  serveSocket: (socket: WebSocket) => () => void;
}

function reply(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType });
  res.end(body);
}

function serveHttp(handle: RpcHandler) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    // solana-test-validator answers GET /health as well as the getHealth method.
    if (req.method === 'GET' && req.url === '/health') return reply(res, 200, 'text/plain', 'ok');
    if (req.method !== 'POST') return reply(res, 405, 'text/plain', 'Method Not Allowed');
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('error', () => res.destroy()); // the client went away mid-request
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (size > MAX_BODY_BYTES) return reply(res, 413, 'text/plain', 'Payload Too Large');
      const answer = answerJsonRpc(Buffer.concat(chunks).toString('utf8'), handle);
      reply(res, 200, 'application/json', answer === null ? '' : JSON.stringify(answer));
    });
  };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

async function closeServer(server: Server): Promise<void> {
  if (!server.listening) return;
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/**
 * web3.js derives its websocket endpoint from the RPC URL by adding one to the port (as
 * solana-test-validator serves 8899 and 8900), so the websocket listens on the next port up.
 * With port 0 both are picked together, retrying when the port above a free one is taken.
 */
async function listenPortPair(rpcServer: Server, wsServer: Server, host: string, port: number): Promise<number> {
  for (let attempt = 1; ; attempt += 1) {
    const rpcPort = await listen(rpcServer, port, host);
    try {
      await listen(wsServer, rpcPort + 1, host);
      return rpcPort;
    } catch (err) {
      await closeServer(rpcServer);
      if (port !== 0 || attempt === PORT_PAIR_ATTEMPTS || (err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
    }
  }
}

/** Serves JSON-RPC over HTTP POST (single and batch) and the subscriptions over a websocket. */
export async function startRpcServers(options: RpcServerOptions): Promise<RpcEndpoints> {
  const rpcServer = createServer(serveHttp(options.handle));
  // Idle keep-alive connections are closed by their clients only. With Node's 5 s server timeout, a
  // client that reused a connection just as the server dropped it (timers late on a loaded machine)
  // got "other side closed", which a gateway reads as an unreachable RPC (402 payment.chain_unreachable).
  rpcServer.keepAliveTimeout = 0;
  const wsServer = createServer((_req, res) => reply(res, 426, 'text/plain', 'Upgrade Required'));
  const sockets = new WebSocketServer({ server: wsServer });
  // ws re-emits its HTTP server's errors here; a port already taken is handled by listenPortPair,
  // and without a listener the re-emitted EADDRINUSE would be thrown as uncaught.
  sockets.on('error', () => undefined);
  sockets.on('connection', (socket) => {
    const cleanUp = options.serveSocket(socket);
    socket.on('close', cleanUp);
    socket.on('error', () => socket.terminate()); // a client breaking the protocol loses only its own socket
  });
  const port = await listenPortPair(rpcServer, wsServer, options.host, options.port);

  return {
    url: `http://${options.host}:${port}`,
    wsUrl: `ws://${options.host}:${port + 1}`,
    async close() {
      // Code 1000 tells web3.js the close is deliberate, so it does not keep reconnecting.
      const clients = [...sockets.clients];
      clients.forEach((client) => client.close(1000, 'localnet stopped'));
      const grace = setTimeout(() => clients.forEach((client) => client.terminate()), WEBSOCKET_CLOSE_GRACE_MS);
      await Promise.all(clients.map((client) => (client.readyState === client.CLOSED ? undefined : once(client, 'close'))));
      clearTimeout(grace);
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
      await Promise.all([closeServer(rpcServer), closeServer(wsServer)]);
    },
  };
}
