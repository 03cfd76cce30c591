import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';

/**
 * Below Linux's ephemeral range (32768 to 60999, /proc/sys/net/ipv4/ip_local_port_range): neither
 * `listen(0)` nor the source port of an outgoing connection lands here. A port that `listen(0)`
 * handed out and that was then closed could be taken by either before its user binds it, and the
 * suites beside each other make thousands of loopback connections a second.
 */
const FIRST_PORT = 20_000;
const PAST_LAST_PORT = 32_768;

/** A loopback port that was free a moment ago: nothing listens there, so connections are refused, and a process started next can listen there. */
export async function closedPort(): Promise<number> {
  for (;;) {
    const port = randomInt(FIRST_PORT, PAST_LAST_PORT);
    if (await bindable(port)) return port;
  }
}

function bindable(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
