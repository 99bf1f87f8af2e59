/**
 * What both API Pix notification routes share: the platform's (router.ts, POST
 * /webhooks/pix-api/:secret/pix) and each merchant connection's
 * (api/connections/notifications/router.ts, POST /webhooks/pix-api/connections/:id/:secret/pix).
 *
 * - wrongSecretBrake: a request whose secret is wrong is answered like a route that does not exist
 *   (404 NOT_FOUND), counts against a per-IP budget (past it 429 RATE_LIMITED) and is logged once
 *   per interval with the count, never each and never with the value (a near miss of the secret is
 *   still most of the secret). Only wrong secrets meet it: a right one is never limited.
 * - parsePixNotification and receivePixNotification: the body read and each Pix sent through the one claim path
 *   (ProviderCallbackService), in order; a connection's claims carry its merchant as their scope.
 */
import crypto from 'node:crypto';
import type { Request, Response, NextFunction } from 'express';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { ApiError } from '../../errors/apiError';
import { perIpFailureLimit } from '../../middleware/rateLimit';
import { parseOrThrow } from '../../validation/validate';
import type { CallbackOutcome, MerchantScope, ProviderCallbackService } from '../../../db/charges';
import { receivedPixOf } from '../../../core/pix/receivedPix';
import { notifiedPixSchema, pixNotificationBody, sentPixNoticeSchema } from './schema';

export interface WrongSecretOptions {
  /** Requests with a wrong secret per client IP per minute before 429 RATE_LIMITED. */
  perMinute?: number;
  /** How often the count of wrong secrets is logged (one warn line per interval that had any). */
  logIntervalMs?: number;
}

export const WRONG_SECRETS_PER_MINUTE = 10;
export const WRONG_SECRET_LOG_INTERVAL_MS = 60_000;

/** Refuses a request whose secret was wrong: `next(404)`, or `next(429)` past the per-IP budget. */
export type WrongSecretBrake = (req: Request, res: Response, next: NextFunction) => void;

/** `path` is the route's template, for the log line (never the path as called: it holds the guess). */
export function wrongSecretBrake(opts: {
  logger: Logger;
  path: string;
  options?: WrongSecretOptions;
}): WrongSecretBrake {
  const limit = perIpFailureLimit({
    perMinute: opts.options?.perMinute ?? WRONG_SECRETS_PER_MINUTE,
    what: 'requests with a wrong secret',
  });
  const tally = wrongSecretTally(opts.logger, opts.path, opts.options?.logIntervalMs ?? WRONG_SECRET_LOG_INTERVAL_MS);
  return (req, res, next) => {
    void limit(req, res, (err?: unknown) => {
      const limited = err instanceof ApiError && err.status === 429;
      tally(limited);
      next(err ?? new ApiError(404, 'NOT_FOUND', 'unknown notification URL'));
    });
  };
}

/**
 * Counts wrong secrets and writes one warn line per interval with their count (and how many of
 * them were past the limit): the first wrong secret opens the interval, its end writes the line.
 * A scan, or a PSP still calling with a replaced secret, costs one line a minute, not one each.
 * Without the request's traceId: the line speaks for many requests (each has its own request line).
 * The timer does not hold the process open; a count still open when the process stops is lost.
 */
function wrongSecretTally(logger: Logger, path: string, intervalMs: number): (limited: boolean) => void {
  let open: { count: number; limited: number } | null = null;
  return (limited) => {
    if (!open) {
      const tally = (open = { count: 0, limited: 0 });
      setTimeout(() => {
        open = null;
        logger.warn(
          { path, count: tally.count, limited: tally.limited, intervalSeconds: intervalMs / 1000 },
          'API Pix notifications with a wrong secret; refused as not found (429 past the limit)',
        );
      }, intervalMs).unref();
    }
    open.count++;
    if (limited) open.limited++;
  };
}

/** Equal-length digests, so a comparison takes the same time whatever the length of the guess. */
export function secretDigest(value: string): Buffer {
  return crypto.createHash('sha256').update(value, 'utf8').digest();
}

/** Whether `given` is the secret whose digest is `expected`, in constant time. */
export function sameSecret(given: string, expected: Buffer): boolean {
  return crypto.timingSafeEqual(secretDigest(given), expected);
}

export interface PixNotificationAnswer {
  received: true;
  outcomes: Array<{ endToEndId?: string; idEnvio?: string; outcome: CallbackOutcome }>;
}

/** The notification body, checked (400 VALIDATION_ERROR otherwise); read only after the secret was. */
export function parsePixNotification(rawBody: unknown): PixNotification {
  return parseOrThrow(pixNotificationBody, rawBody, 'notification body');
}

export type PixNotification = z.infer<typeof pixNotificationBody>;

/** Efí reports a sent Pix given back as `devolucoes[]` on its entry: anything there but an empty list counts. */
function reportsReturns(entry: { devolucoes?: unknown }): boolean {
  const returns = entry.devolucoes;
  return returns !== undefined && returns !== null && !(Array.isArray(returns) && returns.length === 0);
}

/**
 * Each Pix of a notification body through the claim path: a Pix received to handleReceivedPix
 * (with the connection's merchant as its scope, if any), an Efí notice about a Pix we sent to
 * handleSentPix. In order, one at a time: a batch is a few Pix, and each is a database write and
 * a signal. Resolves once every Pix is durable, so the route answers 200 only then.
 */
export async function receivePixNotification(
  service: Pick<ProviderCallbackService, 'handleReceivedPix' | 'handleSentPix'>,
  body: PixNotification,
  scope?: MerchantScope,
): Promise<PixNotificationAnswer> {
  const outcomes: PixNotificationAnswer['outcomes'] = [];
  for (const pix of body.pix) {
    const sent = sentPixNoticeSchema.safeParse(pix);
    if (sent.success) {
      const { idEnvio, erro } = sent.data.gnExtras;
      const code = erro?.codigo;
      const reason = typeof code === 'string' && /^[A-Z0-9]{2,8}$/.test(code) ? code : null;
      const reportsReturn = reportsReturns(sent.data);
      outcomes.push({ idEnvio, outcome: await service.handleSentPix({ idEnvio, reason, reportsReturn }, scope) });
    } else {
      const received = pix as z.infer<typeof notifiedPixSchema>;
      outcomes.push({
        endToEndId: received.endToEndId,
        outcome: await service.handleReceivedPix(receivedPixOf(received), scope),
      });
    }
  }
  return { received: true, outcomes };
}
