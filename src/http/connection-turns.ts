import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Injectable } from '@nestjs/common';
import { GatewayConfig } from '../config/gateway-config';
import { HttpMetrics } from './http-metrics';

/** Requests that may wait on one connection behind the one being served; one more closes the connection. */
export const MAX_WAITING_REQUESTS = 16;

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Requests on one connection are served one at a time, and a connection whose client stops taking
 * its answer is closed (docs/decisions.md, "Slow clients hold nothing"). Node's server parses
 * pipelined requests and hands them all to the app at once: one connection could run any number
 * concurrently, whatever GW_MAX_CONNECTIONS_PER_CLIENT says, and a client that never reads would
 * have the gateway buffer every answer. Here the next request of a connection reaches the app only
 * once the previous response has closed; past MAX_WAITING_REQUESTS waiting the connection is
 * destroyed and counted. While a request is served, a connection with response bytes pending of
 * which the client took none between two looks GW_SEND_TIMEOUT_SECS apart is destroyed and counted
 * (its request ends as a departed client's does): that bounds a stalled write, never a long answer
 * that is being read, nor a silent one.
 */
@Injectable()
export class ConnectionTurns {
  private readonly connections = new WeakMap<Socket, Turns>();
  private readonly sendTimeoutMs: number;

  constructor(
    config: GatewayConfig,
    private readonly metrics: HttpMetrics,
  ) {
    this.sendTimeoutMs = config.http.sendTimeoutMs;
  }

  /** Puts the turns in front of the server's own request listeners (the app). */
  attach(server: Server): void {
    const listeners = server.listeners('request') as Listener[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.turnsOf(req.socket).arrive(res, () => {
        for (const listener of listeners) listener.call(server, req, res);
      });
    });
  }

  private turnsOf(socket: Socket): Turns {
    let turns = this.connections.get(socket);
    if (!turns) {
      turns = new Turns(socket, this.sendTimeoutMs, this.metrics);
      this.connections.set(socket, turns);
    }
    return turns;
  }
}

/** One connection's requests: the one being served, those waiting, and the watch on its pending bytes. */
class Turns {
  private serving = false;
  private readonly waiting: Array<() => void> = [];
  private watch: NodeJS.Timeout | null = null;
  /** What the socket had sent at the last look: its completed writes and what libuv still queued of the one under way. */
  private seen = { completed: 0, queued: 0 };

  constructor(
    private readonly socket: Socket,
    private readonly sendTimeoutMs: number,
    private readonly metrics: HttpMetrics,
  ) {
    socket.once('close', () => {
      this.waiting.length = 0;
      this.stopWatch();
    });
  }

  arrive(res: ServerResponse, serve: () => void): void {
    // Node's parser goes on through the bytes it already has after the connection was destroyed.
    if (this.socket.destroyed) return;
    if (!this.serving) return this.serve(res, serve);
    if (this.waiting.length >= MAX_WAITING_REQUESTS) {
      this.metrics.rejected('pipelined_requests');
      this.socket.destroy();
      return;
    }
    this.waiting.push(() => this.serve(res, serve));
  }

  private serve(res: ServerResponse, serve: () => void): void {
    this.serving = true;
    this.startWatch();
    res.once('close', () => {
      this.serving = false;
      const next = this.waiting.shift();
      // An answer with `Connection: close` (a refusal, a draining gateway, the client's own word) has ended the socket: the rest go unserved.
      if (next && this.socket.writable) next();
      else this.stopWatch();
    });
    serve();
  }

  private startWatch(): void {
    if (this.watch) return;
    this.seen = sent(this.socket);
    this.watch = setInterval(() => this.look(), this.sendTimeoutMs).unref();
  }

  private stopWatch(): void {
    if (this.watch) clearInterval(this.watch);
    this.watch = null;
  }

  /** Bytes waiting to be sent that the client took none of since the last look: it stopped reading. */
  private look(): void {
    const now = sent(this.socket);
    if (this.socket.writableLength > 0 && now.completed === this.seen.completed && now.queued === this.seen.queued) {
      this.metrics.rejected('send_timeout');
      this.socket.destroy();
      return;
    }
    this.seen = now;
  }
}

/**
 * How far the socket's writes have gone: bytes whose writes completed, and what libuv still holds
 * of the write under way. The second is the only sign of a client slowly taking one large write
 * (an answer written whole), whose completion alone would look like a stall until its last byte.
 */
function sent(socket: Socket): { completed: number; queued: number } {
  const handle = (socket as Socket & { _handle?: { writeQueueSize?: number } | null })._handle;
  return { completed: socket.bytesWritten - socket.writableLength, queued: handle?.writeQueueSize ?? 0 };
}
