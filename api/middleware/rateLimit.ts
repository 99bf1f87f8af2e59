/**
 * Per-IP request rate limit (express-rate-limit, in-memory store). Answers 429 RATE_LIMITED in
 * the error envelope with `RateLimit`/`RateLimit-Policy` (IETF draft 8) and `Retry-After`.
 * Several API instances need a shared store (e.g. rate-limit-redis) to enforce one budget.
 */
import { rateLimit } from 'express-rate-limit';
import type { RequestHandler } from 'express';
import { ApiError } from '../errors/apiError';

const unlimitedPaths = new Set(['/healthz', '/ready']);

export function perIpRateLimit(opts: { perMinute: number }): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: opts.perMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    skip: (req) => unlimitedPaths.has(req.path),
    handler: (_req, res, next, options) => {
      res.setHeader('Retry-After', String(Math.ceil(options.windowMs / 1000)));
      next(new ApiError(429, 'RATE_LIMITED', `rate limit of ${options.limit} requests per minute exceeded; retry after the Retry-After delay`));
    },
  });
}
