/** Reads the idempotency key from `Idempotency-Key` or `x-idempotency-key` (both accepted everywhere). */
import type { Request } from 'express';
import { z } from 'zod';
import { parseOrThrow } from '../validation/validate';

export const idempotencyKeyHeader = z.string().min(1).max(255).regex(/^[\x21-\x7e]+$/, 'printable ASCII without spaces');

export function readIdempotencyKey(req: Request): string | undefined {
  const raw = req.header('idempotency-key') ?? req.header('x-idempotency-key');
  return raw === undefined ? undefined : parseOrThrow(idempotencyKeyHeader, raw, 'idempotency key header');
}
