/**
 * Who may read /metrics and /metrics/perf-db. They reveal business volumes (charges, balances,
 * payouts) of the whole platform, so:
 * - METRICS_TOKEN set (any environment): `Authorization: Bearer <token>` is required, compared in
 *   constant time; anything else is 401 INVALID_METRICS_TOKEN.
 * - METRICS_TOKEN unset in production: the routes do not exist (404 NOT_FOUND, the same answer as
 *   any unknown path): metrics are off until an operator chooses a token.
 * - METRICS_TOKEN unset elsewhere (development, test): open, for local Prometheus and tests.
 */
import crypto from 'node:crypto';
import type { RequestHandler } from 'express';
import { ApiError } from '../errors/apiError';

export interface MetricsAccess {
  token: string | null;
  production: boolean;
}

export function metricsGuard(access: MetricsAccess): RequestHandler {
  const expected = access.token ? digest(access.token) : null;
  return (req, _res, next) => {
    if (!expected) {
      if (access.production) return next(new ApiError(404, 'NOT_FOUND', `no route for ${req.method} ${req.path}`));
      return next();
    }
    const match = /^Bearer (.+)$/.exec(req.header('authorization') ?? '');
    // Digests of equal length: timingSafeEqual needs it, and the token's length stays hidden.
    if (!match || !crypto.timingSafeEqual(digest(match[1]!), expected)) {
      return next(
        new ApiError(401, 'INVALID_METRICS_TOKEN', 'Authorization: Bearer <METRICS_TOKEN> is missing or wrong'),
      );
    }
    next();
  };
}

function digest(value: string): Buffer {
  return crypto.createHash('sha256').update(value).digest();
}
