import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * One TCP connection written by hand from a chosen loopback address, as an attacker writes it: a
 * request head, part of a body, then nothing. `response` settles with the first answer (or null if
 * the connection closed with none); `closed` when the gateway closed the connection.
 */
export class RawConnection {
  readonly socket: Socket;
  readonly response: Promise<RawResponse | null>;
  readonly closed: Promise<void>;
  /** Bytes the gateway sent, all answers together. */
  received = '';

  constructor(url: string, localAddress = '127.0.0.1') {
    const { hostname, port } = new URL(url);
    this.socket = connect({ host: hostname, port: Number(port), localAddress });
    this.socket.on('error', () => undefined);
    this.socket.setEncoding('latin1');
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve()));
    this.response = new Promise((resolve) => {
      this.socket.on('data', (chunk: string) => {
        this.received += chunk;
        const answer = parseResponse(this.received);
        if (answer) resolve(answer);
      });
      this.socket.once('close', () => resolve(parseResponse(this.received)));
    });
  }

  /**
   * The answers on this connection, in order (a `100 Continue` is one), once there are `count` of
   * them or the connection has closed.
   */
  answers(count: number): Promise<RawResponse[]> {
    return new Promise((resolve) => {
      const check = (): void => {
        const answers = parseResponses(this.received);
        if (answers.length < count && !this.socket.destroyed) return;
        this.socket.off('data', check);
        this.socket.off('close', check);
        resolve(answers);
      };
      this.socket.on('data', check);
      this.socket.on('close', check);
      check();
    });
  }

  /** Whether the connection was accepted (not refused or reset before it opened). */
  get connected(): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.socket.readyState === 'open') return resolve(true);
      this.socket.once('connect', () => resolve(true));
      this.socket.once('close', () => resolve(false));
    });
  }

  /** Writes and resolves once the bytes left, or false when the socket no longer takes them. */
  write(bytes: string | Buffer): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.socket.destroyed || !this.socket.writable) return resolve(false);
      this.socket.write(bytes, (err) => resolve(!err));
    });
  }

  destroy(): void {
    this.socket.destroy();
  }
}

/** A request head for `path` with the given headers and `Host`. */
export function requestHead(method: string, path: string, headers: Record<string, string | number> = {}): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: gateway', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

function parseResponse(text: string): RawResponse | null {
  return parseAnswer(text)?.response ?? null;
}

function parseResponses(text: string): RawResponse[] {
  const responses: RawResponse[] = [];
  for (let rest = text, answer = parseAnswer(rest); answer; rest = rest.slice(answer.length), answer = parseAnswer(rest)) responses.push(answer.response);
  return responses;
}

/** The answer `text` begins with (bodies are sized by Content-Length), and how many characters it takes. */
function parseAnswer(text: string): { response: RawResponse; length: number } | null {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) return null;
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  const length = Number(headers['content-length'] ?? 0);
  const body = text.slice(end + 4);
  if (Buffer.byteLength(body, 'latin1') < length) return null;
  return { response: { status: Number(statusLine.split(' ')[1]), headers, body: body.slice(0, length) }, length: end + 4 + length };
}

/** A request from a chosen loopback address on a connection of its own, the answer read whole. */
export function requestFrom(localAddress: string, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: init.method ?? 'GET', localAddress, agent: false, headers: init.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: Object.fromEntries(Object.entries(res.headers).map(([name, value]) => [name, String(value)])), body }));
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
