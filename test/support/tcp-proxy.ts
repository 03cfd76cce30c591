import { connect, createServer, type AddressInfo, type Socket } from 'node:net';

export interface TcpProxy {
  /** The loopback port to connect to instead of the target's. */
  port: number;
  /** Destroys every open connection, both sides: to the clients it looks like the server went away. */
  cut(): void;
  /** While on, new connections are destroyed as soon as they are accepted (a server that is down). */
  refuse(on: boolean): void;
  close(): Promise<void>;
}

/**
 * A byte-for-byte TCP proxy on a free loopback port in front of `target`, to make a shared service
 * (PostgreSQL at 127.0.0.1:5432) look restarted to one client without touching the service.
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let refusing = false;

  const server = createServer((client) => {
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = connect({ host: target.host, port: target.port });
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    }
    // Either side ending or failing takes the other down at once, as a dropped server would.
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });

  const cut = (): void => {
    for (const socket of open) socket.destroy();
    open.clear();
  };
  return {
    port: (server.address() as AddressInfo).port,
    cut,
    refuse: (on) => {
      refusing = on;
    },
    close: async () => {
      refusing = true;
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
