/** A refusal as the API's error envelope gives it (`{error: {type, code, message}}`). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A call to the gateway's own public API, the credential as a bearer token (never in the URL or a cookie). */
export type Api = <T>(method: string, path: string, body?: unknown) => Promise<T>;

export function apiWith(credential: string): Api {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = { authorization: `Bearer ${credential}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'omit', cache: 'no-store' });
    const text = await res.text();
    const json = parsed(text);
    if (!res.ok) {
      const error = (json as { error?: { code?: unknown; message?: unknown } } | null)?.error;
      throw new ApiError(res.status, typeof error?.code === 'string' ? error.code : `http_${res.status}`, typeof error?.message === 'string' ? error.message : `HTTP ${res.status}`);
    }
    return json as T;
  };
}

function parsed(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** A path segment as the URL carries it. */
export const seg = (value: string): string => encodeURIComponent(value);
