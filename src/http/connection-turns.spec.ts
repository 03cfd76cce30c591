import { EventEmitter } from 'node:events';
import { Server } from 'node:http';
import type { GatewayConfig } from '../config/gateway-config';
import { ConnectionTurns, MAX_WAITING_REQUESTS } from './connection-turns';
import type { HttpMetrics } from './http-metrics';

const SEND_TIMEOUT_MS = 1000;

/** What the turns read of a socket: its pending bytes as Node and libuv count them. */
class FakeSocket extends EventEmitter {
  destroyed = false;
  writable = true;
  writableLength = 0;
  bytesWritten = 0;
  _handle = { writeQueueSize: 0 };

  /** The app writes `bytes`, none of which the kernel takes yet. */
  write(bytes: number): void {
    this.bytesWritten += bytes;
    this.writableLength += bytes;
    this._handle.writeQueueSize += bytes;
  }

  destroy(): void {
    this.destroyed = true;
    this.writable = false;
    this.emit('close');
  }
}

describe('ConnectionTurns', () => {
  let server: Server;
  let served: string[];
  let rejected: string[];

  beforeEach(() => {
    jest.useFakeTimers();
    server = new Server();
    served = [];
    rejected = [];
    server.on('request', (req: { url: string }) => served.push(req.url));
    const metrics = { rejected: (reason: string) => rejected.push(reason) } as unknown as HttpMetrics;
    new ConnectionTurns({ http: { sendTimeoutMs: SEND_TIMEOUT_MS } } as GatewayConfig, metrics).attach(server);
  });
  afterEach(() => jest.useRealTimers());

  function arrive(socket: FakeSocket, url: string): EventEmitter {
    const res = new EventEmitter();
    server.emit('request', { url, socket }, res);
    return res;
  }

  it('serves one request of a connection at a time, the next once the previous response closed; other connections meanwhile', () => {
    const socket = new FakeSocket();
    const first = arrive(socket, '/1');
    arrive(socket, '/2');
    arrive(new FakeSocket(), '/other');
    expect(served).toEqual(['/1', '/other']);
    first.emit('close');
    expect(served).toEqual(['/1', '/other', '/2']);
  });

  it('serves no more requests on a connection the answer before ended (Connection: close)', () => {
    const socket = new FakeSocket();
    const first = arrive(socket, '/refused');
    arrive(socket, '/2');
    socket.writable = false;
    first.emit('close');
    expect(served).toEqual(['/refused']);
  });

  it(`destroys a connection, and counts it, when a request arrives past ${MAX_WAITING_REQUESTS} waiting`, () => {
    const socket = new FakeSocket();
    for (let i = 0; i <= MAX_WAITING_REQUESTS; i++) arrive(socket, `/${i}`);
    expect(socket.destroyed).toBe(false);
    arrive(socket, '/one-too-many');
    arrive(socket, '/parsed-after-the-close');
    expect(socket.destroyed).toBe(true);
    expect(rejected).toEqual(['pipelined_requests']);
    expect(served).toEqual(['/0']);
  });

  it('destroys a connection whose pending bytes did not move between two looks, and counts it', () => {
    const socket = new FakeSocket();
    arrive(socket, '/big');
    socket.write(5_000_000);
    jest.advanceTimersByTime(SEND_TIMEOUT_MS);
    expect(socket.destroyed).toBe(false);
    jest.advanceTimersByTime(SEND_TIMEOUT_MS);
    expect(socket.destroyed).toBe(true);
    expect(rejected).toEqual(['send_timeout']);
  });

  it('keeps a connection whose client takes one large write slowly, though the write does not complete', () => {
    const socket = new FakeSocket();
    arrive(socket, '/big');
    socket.write(5_000_000);
    for (let i = 0; i < 20; i++) {
      socket._handle.writeQueueSize -= 1000;
      jest.advanceTimersByTime(SEND_TIMEOUT_MS);
    }
    expect(socket.destroyed).toBe(false);
  });

  it('keeps a connection with nothing pending, however long its answer takes', () => {
    const socket = new FakeSocket();
    arrive(socket, '/slow-upstream');
    jest.advanceTimersByTime(100 * SEND_TIMEOUT_MS);
    expect(socket.destroyed).toBe(false);
    expect(rejected).toEqual([]);
  });

  it('stops looking once the connection has no request being served', () => {
    const socket = new FakeSocket();
    arrive(socket, '/done').emit('close');
    socket.writableLength = 10;
    jest.advanceTimersByTime(10 * SEND_TIMEOUT_MS);
    expect(socket.destroyed).toBe(false);
  });
});
