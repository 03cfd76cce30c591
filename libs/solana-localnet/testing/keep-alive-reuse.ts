import { once } from 'node:events';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Sends a JSON-RPC `getSlot` on one keep-alive connection to `url`, leaves the connection idle for
 * `idleMs`, then sends it again on the same connection. Resolves once both are answered 200;
 * rejects if the server closed the connection meanwhile: a client reusing it just then fails that
 * call ("other side closed"), which a gateway answers as an unreachable chain.
 */
export async function answersAfterIdle(url: string, idleMs: number): Promise<void> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  let received = '';
  let closed = false;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('close', () => (closed = true));
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSlot' });
  const send = (): boolean => socket.write(`POST / HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  const answered = async (count: number): Promise<void> => {
    for (let waited = 0; received.split('HTTP/1.1 200').length - 1 < count; waited += 20) {
      if (closed || waited > 5_000) throw new Error(`answer ${count} did not come; received: ${received}`);
      await sleep(20);
    }
  };
  try {
    send();
    await answered(1);
    await sleep(idleMs);
    if (closed) throw new Error(`the server closed the connection within ${idleMs} ms of idleness`);
    send();
    await answered(2);
  } finally {
    socket.destroy();
  }
}
