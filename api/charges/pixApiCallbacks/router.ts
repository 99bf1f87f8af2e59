/**
 * POST /webhooks/pix-api/:secret/pix: API Pix notifications from the PSP. The secret path
 * segment (PIX_WEBHOOK_SECRET) is compared in constant time; a wrong one is answered like a route
 * that does not exist (404). The body is read only after that (up to 1 MB: a PSP batches), so an
 * anonymous caller cannot make the server parse megabytes.
 *
 * Wrong secrets, and only they, count against a per-IP budget (past it 429 RATE_LIMITED): the
 * route is exempt from the API's per-IP limit, since the PSP must never be turned away, and a right
 * secret never meets this one either. They are logged once per interval with their count, never
 * each and never with the value (intake.ts: the same brake as a merchant connection's route).
 *
 * Each Pix goes through the one claim path (ProviderCallbackService.handleReceivedPix): stored once,
 * signalled to its charge's workflow or settled late, credited only once the PSP's own record
 * confirms it. A Pix that names no charge of ours is logged and answered 200 all the same, so the
 * PSP stops retrying it. 200 only once every Pix is durable, so the PSP retries what we did not take.
 */
import { Router, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { routeJsonBody } from '../../middleware/jsonBody';
import type { CallbackHealth } from '../callbacks/callbackHealth';
import type { ProviderCallbackService } from '../../../db/charges';
import {
  parsePixNotification,
  receivePixNotification,
  sameSecret,
  secretDigest,
  wrongSecretBrake,
  type WrongSecretOptions,
} from './intake';

export function pixApiCallbackRouter(deps: {
  service: ProviderCallbackService;
  webhookSecret: string;
  health: CallbackHealth;
  logger: Logger;
  wrongSecrets?: WrongSecretOptions;
}): Router {
  if (!deps.webhookSecret) throw new Error('pixApiCallbackRouter: the webhook secret is required');
  const expected = secretDigest(deps.webhookSecret);
  const router = Router();
  const refuse = wrongSecretBrake({
    logger: deps.logger,
    path: '/webhooks/pix-api/:secret/pix',
    options: deps.wrongSecrets,
  });

  const knownSecret: RequestHandler = (req, res, next) => {
    if (sameSecret(String(req.params.secret ?? ''), expected)) return next();
    refuse(req, res, next);
  };

  const receive: RequestHandler = async (req, res) => {
    const body = parsePixNotification(req.body);
    deps.health.received();
    res.json(await receivePixNotification(deps.service, body));
  };

  router.post('/:secret/pix', knownSecret, routeJsonBody({ largeLimit: '1mb', isLarge: () => true }), receive);
  return router;
}
