/**
 * POST /webhooks/pix-api/:secret/pix: API Pix notifications from the PSP. The secret path
 * segment (PIX_WEBHOOK_SECRET) is compared in constant time; a wrong one is answered like a route
 * that does not exist (404). The body is read only after that (up to 1 MB: a PSP batches), so an
 * anonymous caller cannot make the server parse megabytes.
 *
 * Wrong secrets, and only they, count against a per-IP budget (past it 429 RATE_LIMITED): the
 * route is exempt from the API's per-IP limit, since the PSP must never be turned away, and a right
 * secret never meets this one either. They are logged once per interval with their count, never
 * each and never with the value (a near miss of the secret is still most of the secret).
 *
 * Each Pix goes through the one claim path (ProviderCallbackService.handleReceivedPix): stored once,
 * signalled to its charge's workflow or settled late, credited only once the PSP's own record
 * confirms it. A Pix that names no charge of ours is logged and answered 200 all the same, so the
 * PSP stops retrying it. 200 only once every Pix is durable, so the PSP retries what we did not take.
 */
import crypto from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { ApiError } from '../../errors/apiError';
import { routeJsonBody } from '../../middleware/jsonBody';
import { perIpFailureLimit } from '../../middleware/rateLimit';
import { parseOrThrow } from '../../validation/validate';
import type { CallbackHealth } from '../callbacks/callbackHealth';
import type { CallbackOutcome, ProviderCallbackService } from '../../../db/charges';
import type { z } from 'zod';
import { notifiedPixSchema, pixNotificationBody, sentPixNoticeSchema } from './schema';
import { receivedPixOf } from '../../../core/pix/receivedPix';

export function pixApiCallbackRouter(deps: {
  service: ProviderCallbackService;
  webhookSecret: string;
  health: CallbackHealth;
  logger: Logger;
  wrongSecrets?: WrongSecretOptions;
}): Router {
  if (!deps.webhookSecret) throw new Error('pixApiCallbackRouter: the webhook secret is required');
  const expected = digest(deps.webhookSecret);
  const router = Router();
  const limitWrongSecrets = perIpFailureLimit({
    perMinute: deps.wrongSecrets?.perMinute ?? WRONG_SECRETS_PER_MINUTE,
    what: 'requests with a wrong secret',
  });
  const tally = wrongSecretTally(deps.logger, deps.wrongSecrets?.logIntervalMs ?? WRONG_SECRET_LOG_INTERVAL_MS);

  const knownSecret: RequestHandler = (req, res, next) => {
    if (crypto.timingSafeEqual(digest(String(req.params.secret ?? '')), expected)) return next();
    void limitWrongSecrets(req, res, (err?: unknown) => {
      const limited = err instanceof ApiError && err.status === 429;
      tally(limited);
      next(err ?? new ApiError(404, 'NOT_FOUND', 'unknown notification URL'));
    });
  };

  const receive: RequestHandler = async (req, res) => {
    const body = parseOrThrow(pixNotificationBody, req.body, 'notification body');
    deps.health.received();
    const outcomes: Array<{ endToEndId?: string; idEnvio?: string; outcome: CallbackOutcome }> = [];
    // In order, one at a time: a batch is a few Pix, and each is a database write and a signal.
    for (const pix of body.pix) {
      const sent = sentPixNoticeSchema.safeParse(pix);
      if (sent.success) {
        const { idEnvio, erro } = sent.data.gnExtras;
        const code = erro?.codigo;
        const reason = typeof code === 'string' && /^[A-Z0-9]{2,8}$/.test(code) ? code : null;
        outcomes.push({ idEnvio, outcome: await deps.service.handleSentPix({ idEnvio, reason }) });
      } else {
        const received = pix as z.infer<typeof notifiedPixSchema>;
        outcomes.push({
          endToEndId: received.endToEndId,
          outcome: await deps.service.handleReceivedPix(receivedPixOf(received)),
        });
      }
    }
    res.json({ received: true, outcomes });
  };

  router.post('/:secret/pix', knownSecret, routeJsonBody({ largeLimit: '1mb', isLarge: () => true }), receive);
  return router;
}

export interface WrongSecretOptions {
  /** Requests with a wrong secret per client IP per minute before 429 RATE_LIMITED. */
  perMinute?: number;
  /** How often the count of wrong secrets is logged (one warn line per interval that had any). */
  logIntervalMs?: number;
}

export const WRONG_SECRETS_PER_MINUTE = 10;
export const WRONG_SECRET_LOG_INTERVAL_MS = 60_000;

/**
 * Counts wrong secrets and writes one warn line per interval with their count (and how many of
 * them were past the limit): the first wrong secret opens the interval, its end writes the line.
 * A scan, or a PSP still calling with a replaced secret, costs one line a minute, not one each.
 * Without the request's traceId: the line speaks for many requests (each has its own request line).
 * The timer does not hold the process open; a count still open when the process stops is lost.
 */
function wrongSecretTally(logger: Logger, intervalMs: number): (limited: boolean) => void {
  let open: { count: number; limited: number } | null = null;
  return (limited) => {
    if (!open) {
      const tally = (open = { count: 0, limited: 0 });
      setTimeout(() => {
        open = null;
        logger.warn(
          {
            path: '/webhooks/pix-api/:secret/pix',
            count: tally.count,
            limited: tally.limited,
            intervalSeconds: intervalMs / 1000,
          },
          'API Pix notifications with a wrong secret; refused as not found (429 past the limit)',
        );
      }, intervalMs).unref();
    }
    open.count++;
    if (limited) open.limited++;
  };
}

/** Equal-length digests, so the comparison takes the same time whatever the length of the guess. */
function digest(value: string): Buffer {
  return crypto.createHash('sha256').update(value, 'utf8').digest();
}
