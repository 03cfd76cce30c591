import type { Server } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { Injectable } from '@nestjs/common';
import ipaddr from 'ipaddr.js';
import { Command, IPv4ProxyAddress, IPv6ProxyAddress, V1ProxyProtocol, V2ProxyProtocol } from 'proxy-protocol-js';
import { GatewayConfig } from '../config/gateway-config';
import { clientNetwork, unmappedAddress } from '../modules/rate-limits/domain/client-network';
import { HttpMetrics } from './http-metrics';

const V1_SIGNATURE = Buffer.from('PROXY ');
const V2_SIGNATURE = Buffer.from('\r\n\r\n\0\r\nQUIT\n', 'latin1');
/** The PROXY protocol's own bound on a v1 line, CRLF included. */
const V1_MAX_BYTES = 107;
/** The fixed part of a v2 header: signature, version and command, family, length. */
const V2_FIXED_BYTES = 16;

const CLIENT_ADDRESS = Symbol('gw:clientAddress');

type GatedSocket = Socket & { [CLIENT_ADDRESS]?: string };

/**
 * The client a socket speaks for: the address its PROXY header gave, else the TCP peer, an
 * IPv4-mapped address written as IPv4 (however it is spelt), so 127.0.0.1 is one client whichever
 * socket family or header names it. `X-Forwarded-For` is never read (spec 7).
 */
export function socketClient(socket: Socket): string {
  return unmappedAddress((socket as GatedSocket)[CLIENT_ADDRESS] ?? socket.remoteAddress ?? 'unknown');
}

/**
 * What every connection meets before the HTTP parser (docs/decisions.md, "Behind a load
 * balancer" and "Slow clients hold nothing"): from a peer in GW_PROXY_PROTOCOL_CIDRS a PROXY
 * header (v1 or v2, parsed by proxy-protocol-js) may name the client, a v2 LOCAL command (the
 * balancer's own health check) or v1 UNKNOWN meaning the peer itself; then at most
 * GW_MAX_CONNECTIONS_PER_CLIENT open connections per client network in this process, a socket
 * past it destroyed with no answer and counted. A PROXY header from any other peer is a request
 * the HTTP parser refuses: `closesProxyHeader` tells the server's error handler to close it silently.
 */
@Injectable()
export class ConnectionGate {
  private readonly trusted: ReadonlyArray<[ipaddr.IPv4 | ipaddr.IPv6, number]>;
  private readonly maxPerClient: number;
  private readonly headerTimeoutMs: number;
  private readonly open = new Map<string, number>();

  constructor(
    config: GatewayConfig,
    private readonly metrics: HttpMetrics,
  ) {
    this.trusted = config.http.proxyProtocolCidrs.map((cidr) => ipaddr.parseCIDR(cidr));
    this.maxPerClient = config.http.maxConnectionsPerClient;
    this.headerTimeoutMs = config.http.bodyReadTimeoutMs;
  }

  /** Puts the gate in front of the server's own connection handling. */
  attach(server: Server): void {
    const handlers = server.listeners('connection') as Array<(socket: Socket) => void>;
    server.removeAllListeners('connection');
    const serve = (socket: Socket): void => {
      if (!this.admit(socket)) return;
      for (const handler of handlers) handler.call(server, socket);
    };
    server.on('connection', (socket: Socket) => {
      if (this.trusts(socket.remoteAddress)) this.readProxyHeader(socket, serve);
      else serve(socket);
    });
  }

  /** Whether bytes the HTTP parser refused were a PROXY header: such a connection is closed without an answer. */
  static closesProxyHeader(rawPacket: unknown): boolean {
    if (!Buffer.isBuffer(rawPacket)) return false;
    return startsWith(rawPacket, V1_SIGNATURE) || startsWith(rawPacket, V2_SIGNATURE);
  }

  private admit(socket: Socket): boolean {
    if (this.maxPerClient === 0) return true;
    const network = clientNetwork(socketClient(socket));
    const open = this.open.get(network) ?? 0;
    if (open >= this.maxPerClient) {
      this.metrics.rejected('client_connections');
      socket.destroy();
      return false;
    }
    this.open.set(network, open + 1);
    socket.once('close', () => {
      const left = (this.open.get(network) ?? 1) - 1;
      if (left === 0) this.open.delete(network);
      else this.open.set(network, left);
    });
    return true;
  }

  private trusts(address: string | undefined): boolean {
    if (this.trusted.length === 0 || address === undefined || !ipaddr.isValid(address)) return false;
    const peer = ipaddr.process(address);
    return this.trusted.some(([network, bits]) => peer.kind() === network.kind() && peer.match(network, bits));
  }

  /**
   * Reads what opens the connection: a PROXY header is taken off and its client kept; anything
   * else (the header is optional from a trusted peer) goes to the HTTP parser untouched. A header
   * that is malformed, or not complete within GW_BODY_READ_TIMEOUT_SECS, closes the connection.
   */
  private readProxyHeader(socket: Socket, serve: (socket: Socket) => void): void {
    let buffered: Buffer = Buffer.alloc(0);
    const stop = (): void => {
      clearTimeout(timer);
      socket.off('data', onData);
    };
    const onData = (chunk: Buffer): void => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      const header = proxyHeader(buffered);
      if (header === 'incomplete') return;
      stop();
      if (header === 'malformed') {
        this.metrics.rejected('proxy_protocol');
        socket.destroy();
        return;
      }
      if (header.client !== null) (socket as GatedSocket)[CLIENT_ADDRESS] = header.client;
      // Still flowing and handed over in this same turn, so no byte is emitted before the parser listens.
      const rest = buffered.subarray(header.length);
      if (rest.length > 0) socket.unshift(rest);
      serve(socket);
    };
    const timer = setTimeout(() => {
      stop();
      socket.destroy();
    }, this.headerTimeoutMs);
    socket.on('data', onData);
    socket.once('close', stop);
  }
}

type ProxyHeader = { length: number; client: string | null } | 'incomplete' | 'malformed';

/** A PROXY header at the start of `bytes`: its length and client (null: the peer itself); length 0 when there is none. */
function proxyHeader(bytes: Buffer): ProxyHeader {
  if (couldStart(bytes, V2_SIGNATURE)) {
    if (bytes.length < V2_FIXED_BYTES) return 'incomplete';
    const length = V2_FIXED_BYTES + bytes.readUInt16BE(14);
    if (bytes.length < length) return 'incomplete';
    return parsed(() => {
      const header = V2ProxyProtocol.parse(new Uint8Array(bytes.subarray(0, length)));
      if (header.command === Command.LOCAL) return null;
      const { proxyAddress } = header;
      if (proxyAddress instanceof IPv4ProxyAddress) return proxyAddress.sourceAddress.address.join('.');
      if (proxyAddress instanceof IPv6ProxyAddress) return ipaddr.fromByteArray(proxyAddress.sourceAddress.address).toString();
      return null;
    }, length);
  }
  if (couldStart(bytes, V1_SIGNATURE)) {
    const end = bytes.indexOf('\r\n');
    if (end === -1) return bytes.length >= V1_MAX_BYTES ? 'malformed' : 'incomplete';
    if (end + 2 > V1_MAX_BYTES) return 'malformed';
    const line = bytes.toString('latin1', 0, end + 2);
    return parsed(() => {
      if (line.startsWith('PROXY UNKNOWN')) return null;
      const { source } = V1ProxyProtocol.parse(line);
      if (isIP(source.ipAddress) === 0) throw new Error('not an address');
      return source.ipAddress;
    }, end + 2);
  }
  return { length: 0, client: null };
}

function parsed(client: () => string | null, length: number): ProxyHeader {
  try {
    return { length, client: client() };
  } catch {
    return 'malformed';
  }
}

/** Whether `bytes` begin with `signature`, or with the part of it received so far. */
function couldStart(bytes: Buffer, signature: Buffer): boolean {
  const n = Math.min(bytes.length, signature.length);
  return bytes.subarray(0, n).equals(signature.subarray(0, n));
}

function startsWith(bytes: Buffer, signature: Buffer): boolean {
  return bytes.length >= signature.length && couldStart(bytes, signature);
}
