import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line written while handling a request carries. */
export interface RequestLogBindings {
  request_id: string;
  client_request_id?: string;
}

/**
 * The bindings of the request being handled, for the root logger's mixin: lines written anywhere
 * during a request carry its ids without a child logger per request.
 */
export const requestLogContext = new AsyncLocalStorage<RequestLogBindings>();
