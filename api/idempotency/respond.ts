/**
 * The one way a mutating route answers under an idempotency key: every handler that changes
 * state calls `respondIdempotently`, and services only do the work for a given resource id.
 */
import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import { readIdempotencyKey } from './header';
import { runIdempotent, type IdempotencyService } from './idempotencyService';

export interface RespondOptions {
  scope: string;
  /** Whose keys these are: the credential's merchant by default; the application API names the merchant acted for. */
  merchantId?: string;
  request: unknown;
  /** The key when it travels in the body (payout batches); otherwise the header's. */
  key?: string;
  /** What a replay may show: secrets shown once are stored redacted. */
  storedBody?: (body: unknown) => unknown;
  /** How a replay is answered; by default the stored status and body with `idempotent-replayed: true`. */
  replayAnswer?: (stored: { status: number; body: unknown }) => { status: number; body: unknown };
}

export async function respondIdempotently(
  req: Request,
  res: Response,
  idempotency: IdempotencyService,
  opts: RespondOptions,
  work: (resourceId: string, resuming: boolean) => Promise<{ status: number; body: unknown }>,
): Promise<void> {
  const result = await runIdempotent(
    idempotency,
    {
      merchantId: opts.merchantId ?? req.user!.merchantId,
      scope: opts.scope,
      key: opts.key ?? readIdempotencyKey(req),
      request: opts.request,
      newResourceId: crypto.randomUUID(),
      storedBody: opts.storedBody,
    },
    work,
  );
  const answer = result.replay && opts.replayAnswer ? opts.replayAnswer(result) : result;
  if (result.replay) res.setHeader('idempotent-replayed', 'true');
  res.status(answer.status).json(answer.body);
}
