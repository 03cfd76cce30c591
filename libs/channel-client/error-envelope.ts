import { isJsonObject } from '../json/json-object';

/** `error.code` and `error.message` of the gateway's error envelope, when the body is one. */
export function envelopeError(body: unknown): { code?: string; message?: string } {
  const error = isJsonObject(body) && isJsonObject(body.error) ? body.error : {};
  return { code: typeof error.code === 'string' ? error.code : undefined, message: typeof error.message === 'string' ? error.message : undefined };
}
