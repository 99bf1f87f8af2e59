/**
 * JSON body parsing that keeps the raw bytes (signatures are computed over the body exactly as
 * sent), refuses a body that is not JSON on routes that take one, and refuses nesting deeper
 * than MAX_JSON_DEPTH: code that walks a body recursively (the idempotency fingerprint, zod)
 * would otherwise overflow the stack and answer 500.
 *
 * Every route gets a small limit before authentication. A route family that needs large bodies
 * (payout batches) is skipped here and parses in its own router, after authentication, so an
 * anonymous caller cannot make the server parse megabytes.
 */
import express, { type Request, type RequestHandler } from 'express';
import { ApiError, errors } from '../errors/apiError';

declare module 'http' {
  interface IncomingMessage {
    rawBody?: Buffer;
  }
}

export const DEFAULT_BODY_LIMIT = '100kb';
/** Far above any body of ours (a payout batch is 3 levels deep, metadata at most 3 more). */
export const MAX_JSON_DEPTH = 32;

const keepRawBody = (req: import('http').IncomingMessage, _res: unknown, buf: Buffer) => {
  req.rawBody = buf;
};

const parser = (limit: string) => express.json({ limit, strict: true, type: () => true, verify: keepRawBody });

/** Depth of a parsed JSON value, without recursion (the value may be arbitrarily deep). */
export function jsonDepthExceeds(value: unknown, maxDepth: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (!node || typeof node !== 'object') continue;
    if (depth > maxDepth) return true;
    for (const child of Object.values(node)) if (child && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

function parseWith(parse: RequestHandler): RequestHandler {
  return (req, res, next) =>
    parse(req, res, (err?: unknown) => {
      if (err) return next(err);
      if (jsonDepthExceeds(req.body, MAX_JSON_DEPTH))
        return next(errors.validation(`request body is nested deeper than ${MAX_JSON_DEPTH} levels`));
      next();
    });
}

/**
 * The app-wide parser: `limit` everywhere except under `deferredPrefixes`, whose routers parse
 * after authenticating (see `routeJsonBody`).
 */
export function jsonBody(opts: { limit?: string; deferredPrefixes?: string[] } = {}): RequestHandler {
  const standard = parseWith(parser(opts.limit ?? DEFAULT_BODY_LIMIT));
  const deferred = (opts.deferredPrefixes ?? []).map((p) => p.toLowerCase());
  // Express matches routes case-insensitively, so this must too: else a body would be read twice.
  return (req, res, next) => {
    const path = req.path.toLowerCase();
    return deferred.some((p) => path === p || path.startsWith(`${p}/`)) ? next() : standard(req, res, next);
  };
}

/** A router's own parser, mounted after authentication: `largeLimit` where `isLarge`, the small limit elsewhere. */
export function routeJsonBody(opts: { largeLimit: string; isLarge: (req: Request) => boolean }): RequestHandler {
  const standard = parseWith(parser(DEFAULT_BODY_LIMIT));
  const large = parseWith(parser(opts.largeLimit));
  return (req, res, next) => (opts.isLarge(req) ? large : standard)(req, res, next);
}

/** Methods that carry a body must declare it as JSON. */
export const requireJsonContentType: RequestHandler = (req, _res, next) => {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (['POST', 'PUT', 'PATCH'].includes(req.method) && hasBody && !req.is('application/json')) {
    return next(new ApiError(400, 'VALIDATION_ERROR', 'Content-Type must be application/json'));
  }
  next();
};
