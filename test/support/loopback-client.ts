import { request } from 'node:http';

export interface PlainResponse {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/**
 * A JSON POST from a chosen loopback address (127.0.0.2, 127.0.0.3, ...: Linux routes all of
 * 127/8 to the loopback interface), so one test process can be several clients by TCP peer.
 */
export function postFrom(localAddress: string, url: string, body: unknown, headers: Record<string, string> = {}): Promise<PlainResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', localAddress, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const flat = Object.fromEntries(Object.entries(res.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]));
        resolve({ status: res.statusCode ?? 0, headers: flat, body: text.startsWith('{') ? JSON.parse(text) : text });
      });
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
