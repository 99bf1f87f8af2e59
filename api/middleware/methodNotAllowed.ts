/**
 * 405 Method Not Allowed, with `Allow`, for a path the app routes but not with this method
 * (DELETE /sellers/webhooks → `Allow: GET, HEAD, POST`), in the error envelope (in the P0 envelope
 * under /v1/checkouts: its error handler is mounted on that path). Without it such a request fell
 * through to 404 "no route", which told a client the path does not exist.
 *
 * The table is read from the app's own router (router 2.3's `listRoutes()`, walked through every
 * mounted router) the first time a request arrives, when every route is mounted: nothing is
 * listed by hand, so it cannot drift from the routes. HEAD is allowed wherever GET is (Express
 * answers it); OPTIONS is left to Express. Mounted early (app.ts), before authentication: the
 * methods of a path are no secret (GET /openapi.json lists them), and a client learns that the
 * method is wrong before being asked for credentials it may not have.
 *
 * Route paths are Express 5 patterns: literal segments and `:name` parameters (one segment each;
 * Express matches without case and with or without a trailing slash, and so does this). A route
 * this cannot read (a RegExp, a wildcard, an optional group) is never judged: any request under
 * its fixed prefix passes on. A route registered with `.all()` takes every method.
 */
import type { Express, RequestHandler } from 'express';
import { ApiError } from '../errors/apiError';

interface ListedRoute {
  path: string | RegExp;
  methods: string[] | undefined;
  router: Listable | undefined;
}
interface Listable {
  listRoutes?: () => ListedRoute[];
}

interface Entry {
  pattern: RegExp;
  /** Upper case; `*` for a route registered with `.all()`. Empty for an unreadable route: never judged. */
  methods: Set<string>;
  unreadable: boolean;
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** `/sellers/pix/:id` → a RegExp of the whole path; null when the path is not plain segments and `:params`. */
function plainPattern(path: string): RegExp | null {
  if (/[*{}()[\]?+!]/.test(path)) return null;
  const source = path
    .replace(/\/+$/, '')
    .split(/(:[A-Za-z_$][\w$]*)/)
    .map((part, i) => (i % 2 === 1 ? '[^/]+?' : escape(part)))
    .join('');
  return new RegExp(`^${source}/?$`, 'i');
}

/** What precedes the first pattern character: every path an unreadable route may match starts with it. */
function fixedPrefix(path: string): RegExp {
  const fixed = path.split(/[:*{(]/)[0].replace(/\/+$/, '');
  return new RegExp(`^${escape(fixed)}(/|$)`, 'i');
}

function join(prefix: string, path: string): string {
  return `${prefix}/${path}`.replace(/\/{2,}/g, '/');
}

function collect(router: Listable, prefix: string, entries: Entry[]): void {
  if (typeof router.listRoutes !== 'function') {
    // Cannot look inside: nothing under it is judged.
    entries.push({ pattern: fixedPrefix(prefix || '/'), methods: new Set(), unreadable: true });
    return;
  }
  for (const route of router.listRoutes()) {
    if (typeof route.path !== 'string') {
      entries.push({ pattern: fixedPrefix(prefix || '/'), methods: new Set(), unreadable: true });
      continue;
    }
    const path = join(prefix, route.path);
    if (route.router) {
      collect(route.router, path, entries);
      continue;
    }
    const pattern = plainPattern(path);
    if (!pattern) entries.push({ pattern: fixedPrefix(path), methods: new Set(), unreadable: true });
    else
      entries.push({ pattern, methods: new Set((route.methods ?? []).map((m) => m.toUpperCase())), unreadable: false });
  }
}

/**
 * The methods the app routes `path` with (HEAD included wherever GET is), or undefined when no
 * route matches the path or one that matches cannot be judged.
 */
export function routeMethods(app: Express): (path: string) => Set<string> | undefined {
  const entries: Entry[] = [];
  collect((app as unknown as { router: Listable }).router, '', entries);
  return (path) => {
    let found: Set<string> | undefined;
    for (const entry of entries) {
      if (!entry.pattern.test(path)) continue;
      if (entry.unreadable || entry.methods.has('*')) return undefined;
      found ??= new Set();
      for (const method of entry.methods) found.add(method);
    }
    if (found?.has('GET')) found.add('HEAD');
    return found;
  };
}

/** Mount after every route is registered or before: the table is built on the first request. */
export function methodNotAllowed(app: Express): RequestHandler {
  let methodsOf: ((path: string) => Set<string> | undefined) | undefined;
  return (req, res, next) => {
    if (req.method === 'OPTIONS') return next();
    methodsOf ??= routeMethods(app);
    const allowed = methodsOf(req.path);
    if (!allowed || allowed.has(req.method)) return next();
    const allow = [...allowed].sort();
    res.setHeader('Allow', allow.join(', '));
    // The path is not echoed: one of ours carries a secret segment (core/pix/callbackPath.ts).
    next(
      new ApiError(
        405,
        'METHOD_NOT_ALLOWED',
        `${req.method} is not allowed on this path; it takes ${allow.join(', ')}`,
        {
          allow,
        },
      ),
    );
  };
}
