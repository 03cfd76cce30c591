import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { startTcpProxy, type TcpProxy } from './tcp-proxy';

describe('startTcpProxy', () => {
  let echo: Server;
  let proxy: TcpProxy;

  beforeEach(async () => {
    echo = createServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    proxy = await startTcpProxy({ host: '127.0.0.1', port: (echo.address() as AddressInfo).port });
  });
  afterEach(async () => {
    await proxy.close();
    await new Promise((resolve) => echo.close(resolve));
  });

  const open = (): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port: proxy.port });
      socket.once('connect', () => resolve(socket)).once('error', reject);
    });
  const roundTrip = (socket: Socket, text: string): Promise<string> =>
    new Promise((resolve) => {
      socket.once('data', (chunk: Buffer) => resolve(chunk.toString()));
      socket.write(text);
    });
  const closed = (socket: Socket): Promise<void> => new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

  it('relays bytes both ways', async () => {
    const socket = await open();
    expect(await roundTrip(socket, 'hello')).toBe('hello');
    socket.destroy();
  });

  it('cut() drops open connections; new ones work again', async () => {
    const socket = await open();
    socket.on('error', () => undefined);
    expect(await roundTrip(socket, 'one')).toBe('one');
    proxy.cut();
    await closed(socket);
    const next = await open();
    expect(await roundTrip(next, 'two')).toBe('two');
    next.destroy();
  });

  it('refuse(true) destroys new connections at once until refuse(false)', async () => {
    proxy.refuse(true);
    const refused = connect({ host: '127.0.0.1', port: proxy.port });
    refused.on('error', () => undefined);
    await closed(refused);
    proxy.refuse(false);
    const socket = await open();
    expect(await roundTrip(socket, 'back')).toBe('back');
    socket.destroy();
  });
});
