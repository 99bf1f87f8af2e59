/**
 * Per-IP request rate limits (express-rate-limit, in-memory store). Answers 429 RATE_LIMITED in
 * the error envelope with `RateLimit`/`RateLimit-Policy` (IETF draft 8) and `Retry-After`.
 * The client address is the socket's unless the app's 'trust proxy' (TRUST_PROXY) says which
 * hops may set X-Forwarded-For. Several API instances need a shared store (e.g.
 * rate-limit-redis) to enforce one budget.
 */
import { rateLimit } from 'express-rate-limit';
import type { Request, RequestHandler } from 'express';
import { ApiError } from '../errors/apiError';

export interface RateLimitOptions {
  perMinute: number;
  /**
   * Paths the per-IP budget never counts: liveness (answers from memory) and the provider's
   * payment callbacks, which are authenticated (HMAC, the secret path segment), come from a few
   * provider addresses, and must never be turned away (a refused confirmation leaves a paid charge
   * PENDING). A route among them may still limit its failed requests (perIpFailureLimit).
   */
  exemptPaths: string[];
}

export function perIpRateLimit(opts: RateLimitOptions): RequestHandler {
  const exempt = (req: Request) => opts.exemptPaths.some((p) => req.path === p || req.path.startsWith(`${p}/`));
  return perMinuteLimit({ perMinute: opts.perMinute, what: 'requests', skip: exempt });
}

/**
 * A per-IP budget for the requests a route hands it, and only those: the route calls it once it
 * knows the request failed (e.g. a wrong secret), as `limit(req, res, next)`; `next()` when within
 * the budget, `next(ApiError 429 RATE_LIMITED)` past it. A request that succeeds never reaches it,
 * so callers that succeed are never limited, even from the address of a caller that fails (behind
 * a proxy without TRUST_PROXY every caller has the proxy's address). Its own counter, apart from
 * the per-IP budget of perIpRateLimit.
 */
export function perIpFailureLimit(opts: { perMinute: number; what: string }): RequestHandler {
  return perMinuteLimit(opts);
}

function perMinuteLimit(opts: { perMinute: number; what: string; skip?: (req: Request) => boolean }): RequestHandler {
  return rateLimit({
    windowMs: 60_000,
    limit: opts.perMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    ...(opts.skip ? { skip: opts.skip } : {}),
    // Without TRUST_PROXY an X-Forwarded-For header is a client's claim, deliberately ignored;
    // the library would log it as a misconfiguration, once per process, with a stack trace.
    validate: { xForwardedForHeader: false },
    handler: (_req, res, next, options) => {
      res.setHeader('Retry-After', String(Math.ceil(options.windowMs / 1000)));
      next(
        new ApiError(
          429,
          'RATE_LIMITED',
          `rate limit of ${options.limit} ${opts.what} per minute exceeded; retry after the Retry-After delay`,
        ),
      );
    },
  });
}
