import { Injectable, RequestMethod, SetMetadata, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer, Reflector } from '@nestjs/core';
import { routePath } from './request-context';

/**
 * What one route takes of a request body: at most `bytes` of it, holding at most `values` JSON
 * values (each object, array, string, number, true, false and null; object keys are not values:
 * `json-body-scanner.ts`). The value bound is what a body's parse and validation cost: 10 MiB of
 * `[0,0,...]` is five million values, seconds of `JSON.parse` and validation and hundreds of MB,
 * where 10 MiB of text in one string is a few. Each route's is about one value per hundred bytes of
 * its byte limit, as a round figure (docs/decisions.md, "Bodies at the edge").
 */
export interface BodyBound {
  bytes: number;
  values: number;
}

/**
 * Chat (spec 8: 10 MB) and, when it comes, `/v1/messages`. 100,000 values is 256 messages with
 * content parts and dozens of tool schemas many times over.
 */
export const CHAT_BODY_LIMIT: BodyBound = { bytes: 10 * 1024 * 1024, values: 100_000 };
/** A2A and the paid proxy: far above an agent message or an API call, far below chat. */
export const AGENT_BODY_LIMIT: BodyBound = { bytes: 1024 * 1024, values: 10_000 };
/** Tools, enterprise, registry and channel routes: a few fields each (a list of 50 mints or members included). */
export const SMALL_BODY_LIMIT: BodyBound = { bytes: 64 * 1024, values: 1_000 };
/** Spec 8: the price tool's body (at most 50 mints). */
export const PRICE_BODY_LIMIT: BodyBound = { bytes: 16 * 1024, values: 200 };
/** What a route that takes no body takes. */
const NO_BODY: BodyBound = { bytes: 0, values: 0 };

const BODY_LIMIT = Symbol('gw:bodyLimit');

/** Methods whose routes take the body limit their controller declares; any other route (GET, DELETE, ...) declares its own or takes none. */
const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/**
 * The most body a route takes (on a controller: each of its POST, PUT and PATCH routes). A route
 * without one, and every GET and HEAD, takes no body: one is refused with 413 before it is read
 * (docs/decisions.md, "Bodies at the edge").
 */
export function BodyLimit(bound: BodyBound): MethodDecorator & ClassDecorator {
  return SetMetadata(BODY_LIMIT, bound);
}

interface Route {
  method: string;
  /** Lowercased segments; a `:param` segment matches any one segment. */
  segments: readonly string[];
  limit: BodyBound;
}

/**
 * Every route of the app with its body limit, read once from the controllers' metadata, so the edge
 * knows before reading a byte whether a method and path lead anywhere and how much body they take.
 * Paths match as Express matches them: case-insensitive, one trailing slash ignored (two are no route).
 */
@Injectable()
export class RouteTable {
  private exact?: ReadonlyMap<string, BodyBound>;
  private patterns?: readonly Route[];
  private paths?: ReadonlySet<string>;

  constructor(
    private readonly modules: ModulesContainer,
    private readonly reflector: Reflector,
  ) {}

  /**
   * The body limit of the route answering `method` at `path` (0 bytes: it takes none), or null when
   * no route does. OPTIONS is answered by CORS or the router for any path some route has.
   */
  bodyLimit(method: string, path: string): BodyBound | null {
    this.build();
    const routed = routePath(path);
    const asked = method === 'HEAD' ? 'GET' : method;
    if (asked === 'OPTIONS') return this.hasPath(routed) ? NO_BODY : null;
    const exact = this.exact?.get(`${asked} ${routed}`);
    if (exact !== undefined) return exact;
    const segments = routed.split('/');
    return this.patterns?.find((route) => route.method === asked && matches(route.segments, segments))?.limit ?? null;
  }

  private hasPath(routed: string): boolean {
    const segments = routed.split('/');
    return (this.paths?.has(routed) ?? false) || (this.patterns?.some((route) => matches(route.segments, segments)) ?? false);
  }

  private build(): void {
    if (this.exact) return;
    const exact = new Map<string, BodyBound>();
    const patterns: Route[] = [];
    for (const route of this.routes()) {
      const path = route.segments.join('/');
      if (route.segments.some((segment) => segment.startsWith(':'))) patterns.push(route);
      else exact.set(`${route.method} ${path}`, route.limit);
    }
    this.exact = exact;
    this.patterns = patterns;
    this.paths = new Set([...exact.keys()].map((key) => key.slice(key.indexOf(' ') + 1)));
  }

  private *routes(): Generator<Route> {
    for (const module of this.modules.values()) {
      for (const wrapper of module.controllers.values()) {
        const controller = wrapper.metatype as Type | null;
        if (!controller) continue;
        const prefixes = pathsOf(this.reflector.get<string | string[] | undefined>(PATH_METADATA, controller));
        const prototype = controller.prototype as Record<string, unknown>;
        for (const name of Object.getOwnPropertyNames(prototype)) {
          const handler = prototype[name];
          if (name === 'constructor' || typeof handler !== 'function') continue;
          const requestMethod = this.reflector.get<RequestMethod | undefined>(METHOD_METADATA, handler);
          if (requestMethod === undefined) continue;
          const method = RequestMethod[requestMethod];
          const declared = this.reflector.get<BodyBound | undefined>(BODY_LIMIT, handler) ?? (BODY_METHODS.has(method) ? this.reflector.get<BodyBound | undefined>(BODY_LIMIT, controller) : undefined);
          const limit = method === 'GET' || method === 'HEAD' ? NO_BODY : (declared ?? NO_BODY);
          for (const prefix of prefixes) {
            for (const path of pathsOf(this.reflector.get<string | string[] | undefined>(PATH_METADATA, handler))) {
              yield { method, segments: routePath(`/${prefix}/${path}`.replace(/\/+/g, '/')).split('/'), limit };
            }
          }
        }
      }
    }
  }
}

function pathsOf(declared: string | string[] | undefined): string[] {
  if (declared === undefined) return [''];
  return Array.isArray(declared) ? declared : [declared];
}

function matches(pattern: readonly string[], segments: readonly string[]): boolean {
  if (pattern.length !== segments.length) return false;
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i].startsWith(':') ? segments[i] === '' : pattern[i] !== segments[i]) return false;
  }
  return true;
}
