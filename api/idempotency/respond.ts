/** Runs a mutating handler under the request's idempotency key (if any) and sends its answer. */
import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import { readIdempotencyKey } from './header';
import { runIdempotent, type IdempotencyService } from './idempotencyService';

export async function respondIdempotently(
  req: Request,
  res: Response,
  idempotency: IdempotencyService,
  opts: { scope: string; request: unknown; storedBody?: (body: unknown) => unknown },
  work: () => Promise<{ status: number; body: unknown }>,
): Promise<void> {
  const result = await runIdempotent(
    idempotency,
    { merchantId: req.user!.merchantId, scope: opts.scope, key: readIdempotencyKey(req), request: opts.request, newResourceId: crypto.randomUUID(), storedBody: opts.storedBody },
    work,
  );
  if (result.replay) res.setHeader('idempotent-replayed', 'true');
  res.status(result.status).json(result.body);
}
