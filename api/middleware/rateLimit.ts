/**
 * Per-IP request rate limit (express-rate-limit, in-memory store). Answers 429 RATE_LIMITED in
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
   * Paths never limited: liveness (answers from memory) and the provider's payment callbacks,
   * which are authenticated by HMAC, come from a few provider addresses, and must never be
   * turned away (a refused confirmation leaves a paid charge PENDING).
   */
  exemptPaths: string[];
}

export function perIpRateLimit(opts: RateLimitOptions): RequestHandler {
  const exempt = (req: Request) => opts.exemptPaths.some((p) => req.path === p || req.path.startsWith(`${p}/`));
  return rateLimit({
    windowMs: 60_000,
    limit: opts.perMinute,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    skip: exempt,
    // Without TRUST_PROXY an X-Forwarded-For header is a client's claim, deliberately ignored;
    // the library would log it as a misconfiguration, once per process, with a stack trace.
    validate: { xForwardedForHeader: false },
    handler: (_req, res, next, options) => {
      res.setHeader('Retry-After', String(Math.ceil(options.windowMs / 1000)));
      next(
        new ApiError(
          429,
          'RATE_LIMITED',
          `rate limit of ${options.limit} requests per minute exceeded; retry after the Retry-After delay`,
        ),
      );
    },
  });
}
