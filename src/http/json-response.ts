import type { Response } from 'express';

/**
 * What `res.status(status).json(body)` writes, for the hot routes, without Express's way there:
 * its `json` looks up the app's replacer and spacing, `type` the media type's charset, and `send`
 * the request's freshness and an ETag, none of which a POST answer uses (docs/performance.md,
 * "The CPU floor"). The headers set before (security headers, request id, rate limits) go with it.
 */
export function writeJson(res: Response, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
