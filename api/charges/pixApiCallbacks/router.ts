/**
 * POST /webhooks/pix-api/:secret/pix: API Pix notifications from the PSP; beside it /:secret/rec
 * and /:secret/cobr, Pix Automático's (webhookrec, webhookcobr registered at the same URL): each
 * recurrence or cycle charge they name is found (its subscription) and its workflow signalled to
 * read the PSP (db/subscriptions notices.ts); an id of no subscription of ours is logged and
 * answered 200 all the same. The secret path
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
import type { NoticeDeps } from '../../../db/subscriptions';
import { answerCobrNotice, answerRecNotice, cobrNoticeClaims, recNoticeClaims } from './automaticoNotices';
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
  /** Pix Automático's notices (/rec, /cobr): where subscriptions are found and signalled. */
  subscriptions: Omit<NoticeDeps, 'logger'>;
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

  const notices: NoticeDeps = {
    ...deps.subscriptions,
    logger: deps.logger.child({ module: 'pix-automatico-notices' }),
  };

  const receiveRecs: RequestHandler = async (req, res) => {
    const claims = recNoticeClaims(req.body);
    deps.health.received();
    res.json(await answerRecNotice(notices, claims));
  };

  const receiveCobrs: RequestHandler = async (req, res) => {
    const claims = cobrNoticeClaims(req.body);
    deps.health.received();
    res.json(await answerCobrNotice(notices, claims));
  };

  const body = routeJsonBody({ largeLimit: '1mb', isLarge: () => true });
  router.post('/:secret/pix', knownSecret, body, receive);
  router.post('/:secret/rec', knownSecret, body, receiveRecs);
  router.post('/:secret/cobr', knownSecret, body, receiveCobrs);
  return router;
}
