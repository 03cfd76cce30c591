import type { IncomingMessage, Server, ServerResponse } from 'node:http';

const AWAITING_CONTINUE = new WeakSet<IncomingMessage>();

/**
 * `Expect: 100-continue` answered when the edge reads the body, not at once (docs/decisions.md,
 * "Bodies at the edge"). Unless 'checkContinue' is heard, Node writes `100 Continue` as soon as the
 * headers are parsed, and the client sends its whole body to a request the edge then refuses from
 * those headers (an unknown route, a length over the limit, a route without a body, an encoding or
 * media type refused). Heard here, the request goes on through the edge with no 100; the body step
 * sends it once the headers passed (`sendContinue`), and a refusal closes the connection instead.
 */
export function deferContinue(server: Server): void {
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    AWAITING_CONTINUE.add(req);
    server.emit('request', req, res);
  });
}

/** The `100 Continue` a client waits for before it sends the body, once the edge is about to read it. */
export function sendContinue(req: IncomingMessage, res: ServerResponse): void {
  if (AWAITING_CONTINUE.delete(req)) res.writeContinue();
}
