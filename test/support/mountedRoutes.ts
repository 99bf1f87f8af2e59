/**
 * Every (METHOD, path) an Express 5 app answers through a route, in OpenAPI path form
 * (`/sellers/pix/{id}`). Walks the app's router with router 2.3's public `listRoutes()`, which
 * gives each layer's own path (a route's, or a mounted router's prefix), recursing into mounted
 * routers and joining the prefixes. Plain middleware is not a route and is not listed.
 */
import type { Express } from 'express';

interface RouteInfo {
  path: string | RegExp;
  methods: string[] | undefined;
  router: Listable | undefined;
}
interface Listable {
  listRoutes?: () => RouteInfo[];
}

/** The application API: signed-in people with bearer tokens (everything else is server to server or public). */
export const APPLICATION_ROUTES =
  /^\/(auth|dashboard|charges|boletos|checkout|courses|enrolments|reconciliations|settlements|med|subscriptions)(\/|$)/;

export interface MountedRoute {
  method: string; // upper case
  path: string; // OpenAPI form
}

/** Methods Express adds by itself (HEAD for every GET, OPTIONS answered by the router). */
const IMPLICIT = new Set(['HEAD', 'OPTIONS']);
/** Methods an OpenAPI path item can hold; anything else (ACL, M-SEARCH…) means `.all()` was used. */
const DOCUMENTABLE = new Set(['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'TRACE']);

export function listMountedRoutes(app: Express): MountedRoute[] {
  const root = (app as unknown as { router: Listable }).router;
  const found = new Map<string, MountedRoute>();
  walk(root, '', found);
  return [...found.values()].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

function walk(router: Listable, prefix: string, found: Map<string, MountedRoute>): void {
  if (typeof router.listRoutes !== 'function') {
    throw new Error(`router at "${prefix || '/'}" has no listRoutes(): needs the router package >= 2.3 (Express 5)`);
  }
  for (const entry of router.listRoutes()) {
    if (typeof entry.path !== 'string')
      throw new Error(`route ${String(entry.path)} under "${prefix || '/'}" is a RegExp: cannot be listed`);
    const path = joinPaths(prefix, entry.path);
    if (entry.router) {
      walk(entry.router, path, found);
      continue;
    }
    for (const method of entry.methods ?? []) {
      if (IMPLICIT.has(method)) continue;
      if (!DOCUMENTABLE.has(method))
        throw new Error(
          `${path} answers ${method} (registered with .all()?): register explicit methods so they can be documented`,
        );
      const route = { method, path: toOpenApiPath(path) };
      found.set(`${route.method} ${route.path}`, route);
    }
  }
}

function joinPaths(prefix: string, path: string): string {
  return `${prefix}/${path}`.replace(/\/{2,}/g, '/');
}

/**
 * `/a/:id/` → `/a/{id}`: parameters in braces, no trailing slash (Express matches with or
 * without one). Express 5 optional groups (`{…}`) and wildcards (`*name`) have no single
 * OpenAPI path, so they are refused rather than guessed.
 */
export function toOpenApiPath(expressPath: string): string {
  if (/[{}*]/.test(expressPath))
    throw new Error(`${expressPath}: optional groups and wildcards are not supported by the route coverage check`);
  const path = expressPath.replace(/:(\w+)/g, '{$1}').replace(/\/+$/, '');
  return path === '' ? '/' : path;
}

/** The same normalisation for the document's paths (`/sellers/webhooks/` and `/sellers/webhooks` are one route). */
export function normaliseDocumentPath(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}
