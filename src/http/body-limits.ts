import { Injectable, RequestMethod, SetMetadata, type Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer, Reflector } from '@nestjs/core';
import { routePath } from './request-context';

/** Chat (spec 8: 10 MB) and, when it comes, `/v1/messages`. */
export const CHAT_BODY_LIMIT = 10 * 1024 * 1024;
/** A2A and the paid proxy: far above an agent message or an API call, far below chat. */
export const AGENT_BODY_LIMIT = 1024 * 1024;
/** Tools, enterprise, registry and channel routes: a few fields each. */
export const SMALL_BODY_LIMIT = 64 * 1024;
/** Spec 8: the price tool's body. */
export const PRICE_BODY_LIMIT = 16 * 1024;

const BODY_LIMIT = Symbol('gw:bodyLimit');

/** Methods whose routes take the body limit their controller declares; any other route (GET, DELETE, ...) declares its own or takes none. */
const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/**
 * The most body bytes a route takes (on a controller: each of its POST, PUT and PATCH routes). A
 * route without one, and every GET and HEAD, takes no body: one is refused with 413 before it is
 * read (docs/decisions.md, "Bodies at the edge").
 */
export function BodyLimit(bytes: number): MethodDecorator & ClassDecorator {
  return SetMetadata(BODY_LIMIT, bytes);
}

interface Route {
  method: string;
  /** Lowercased segments; a `:param` segment matches any one segment. */
  segments: readonly string[];
  limit: number;
}

/**
 * Every route of the app with its body limit, read once from the controllers' metadata, so the edge
 * knows before reading a byte whether a method and path lead anywhere and how much body they take.
 * Paths match as Express matches them: case-insensitive, one trailing slash ignored (two are no route).
 */
@Injectable()
export class RouteTable {
  private exact?: ReadonlyMap<string, number>;
  private patterns?: readonly Route[];
  private paths?: ReadonlySet<string>;

  constructor(
    private readonly modules: ModulesContainer,
    private readonly reflector: Reflector,
  ) {}

  /**
   * The body limit of the route answering `method` at `path` (0: it takes none), or null when no
   * route does. OPTIONS is answered by CORS or the router for any path some route has.
   */
  bodyLimit(method: string, path: string): number | null {
    this.build();
    const routed = routePath(path);
    const asked = method === 'HEAD' ? 'GET' : method;
    if (asked === 'OPTIONS') return this.hasPath(routed) ? 0 : null;
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
    const exact = new Map<string, number>();
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
          const declared = this.reflector.get<number | undefined>(BODY_LIMIT, handler) ?? (BODY_METHODS.has(method) ? this.reflector.get<number | undefined>(BODY_LIMIT, controller) : undefined);
          const limit = method === 'GET' || method === 'HEAD' ? 0 : (declared ?? 0);
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
