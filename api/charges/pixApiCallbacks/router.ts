/**
 * POST /webhooks/pix-api/:secret/pix: API Pix notifications from the PSP. The secret path
 * segment (PIX_WEBHOOK_SECRET) is compared in constant time; a wrong one is answered like a route
 * that does not exist (404) and logged without its value. The body is read only after that (up to
 * 1 MB: a PSP batches), so an anonymous caller cannot make the server parse megabytes.
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
import { parseOrThrow } from '../../validation/validate';
import type { CallbackHealth } from '../callbacks/callbackHealth';
import type { CallbackOutcome, ProviderCallbackService } from '../callbacks/service';
import { pixNotificationBody } from './schema';
import { receivedPixOf } from '../../../activities/provider/receivedPixOf';

export function pixApiCallbackRouter(deps: {
  service: ProviderCallbackService;
  webhookSecret: string;
  health: CallbackHealth;
  logger: Logger;
}): Router {
  if (!deps.webhookSecret) throw new Error('pixApiCallbackRouter: the webhook secret is required');
  const expected = digest(deps.webhookSecret);
  const router = Router();

  const knownSecret: RequestHandler = (req, res, next) => {
    if (crypto.timingSafeEqual(digest(String(req.params.secret ?? '')), expected)) return next();
    // Never the value: a near miss of the secret is still most of the secret.
    ((res.locals.log as Logger | undefined) ?? deps.logger).warn(
      { path: '/webhooks/pix-api/:secret/pix' },
      'API Pix notification with a wrong secret; refused as not found',
    );
    next(new ApiError(404, 'NOT_FOUND', 'unknown notification URL'));
  };

  const receive: RequestHandler = async (req, res) => {
    const body = parseOrThrow(pixNotificationBody, req.body, 'notification body');
    deps.health.received();
    const outcomes: Array<{ endToEndId: string; outcome: CallbackOutcome }> = [];
    // In order, one at a time: a batch is a few Pix, and each is a database write and a signal.
    for (const pix of body.pix)
      outcomes.push({ endToEndId: pix.endToEndId, outcome: await deps.service.handleReceivedPix(receivedPixOf(pix)) });
    res.json({ received: true, outcomes });
  };

  router.post('/:secret/pix', knownSecret, routeJsonBody({ largeLimit: '1mb', isLarge: () => true }), receive);
  return router;
}

/** Equal-length digests, so the comparison takes the same time whatever the length of the guess. */
function digest(value: string): Buffer {
  return crypto.createHash('sha256').update(value, 'utf8').digest();
}
