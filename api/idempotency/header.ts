/** Reads the idempotency key from `Idempotency-Key` or `x-idempotency-key` (both accepted everywhere). */
import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import { ApiError } from '../errors/apiError';
import { ERROR_CODES } from '../openapi/errorCodes';
import { parseOrThrow } from '../validation/validate';

export const idempotencyKeyHeader = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces');

export function readIdempotencyKey(req: Request): string | undefined {
  const raw = req.header('idempotency-key') ?? req.header('x-idempotency-key');
  return raw === undefined ? undefined : parseOrThrow(idempotencyKeyHeader, raw, 'idempotency key header');
}

/**
 * The one check of "this route needs a key" (POST /v1/checkouts, /charges, /charges/{id}/refund,
 * /boletos, /checkout/sessions, /settlements): mounted in front of the route's handler, so a
 * request without a key (either spelling) is refused before its body, ids or roles are looked
 * at, the same way on every such route. Nothing else answers IDEMPOTENCY_KEY_REQUIRED. The
 * document marks these routes' header required (requiredIdempotencyHeaders in
 * api/openapi/registry.ts); test/integration/openapi.test.ts sends every documented operation
 * without a key and checks the two agree.
 */
export const requireIdempotencyKey: RequestHandler = (req, _res, next) => {
  if (readIdempotencyKey(req) === undefined)
    throw new ApiError(400, 'IDEMPOTENCY_KEY_REQUIRED', ERROR_CODES.IDEMPOTENCY_KEY_REQUIRED.message);
  next();
};
