/**
 * POST /webhooks/pix-api/connections/:connectionId/:secret/pix: API Pix notifications from a
 * merchant's own PSP (the connected account model), at the URL `gateway connection webhook`
 * registered there for the connection's Pix key. The connection must be ACTIVE and :secret its
 * webhook path secret (service.ts; compared as digests, in constant time); an unknown or malformed
 * id, a revoked connection and a wrong secret are all the platform route's 404 NOT_FOUND, and count
 * against the same kind of per-IP wrong-secret brake (429 RATE_LIMITED past it), logged once per
 * interval without the value (api/charges/pixApiCallbacks/intake.ts). The body is read only after
 * the secret was found right.
 *
 * Each Pix goes through the platform route's claim path (ProviderCallbackService), scoped to the
 * connection's merchant: a Pix whose txid names another merchant's charge is not claimed (answered
 * 200 NOT_THIS_CONNECTION, so the PSP stops retrying it). 200 only once every Pix is durable.
 *
 * POST /webhooks/pix-api/connections/:connectionId/:secret/boletos/:chargeId: Efí's API Cobranças
 * notification of a boleto issued on the connection (its notification_url names our charge), body
 * `notification=<token>` form-encoded, as real Efí posts it, or `{"notification": "<token>"}` as
 * JSON (the app's JSON-only gate lets this one route by: isConnectionBoletoNoticePath; any other
 * Content-Type is 400 here). The same secret checks; the
 * notice is only a reason to read the boleto at the merchant's account (ProviderCallbackService
 * .handleBoletoNotice), never a payment by itself.
 *
 * POST /webhooks/pix-api/connections/:connectionId/:secret/rec and /cobr: Pix Automático's notices
 * (webhookrec, webhookcobr, registered at the same URL as the Pix one), taken as the platform's
 * routes take them (api/charges/pixApiCallbacks/automaticoNotices.ts), the same secret checks, each
 * id looked up among the connection's merchant's subscriptions only: one naming another merchant's
 * is answered 200 NOT_THIS_CONNECTION and its workflow is not signalled.
 */
import express, { Router, type RequestHandler } from 'express';
import { ApiError } from '../../errors/apiError';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import type { MasterKeyring } from '../../../core/crypto/envelope';
import { routeJsonBody } from '../../middleware/jsonBody';
import { ProviderCallbackService, type MerchantScope } from '../../../db/charges';
import {
  parsePixNotification,
  receivePixNotification,
  wrongSecretBrake,
  type WrongSecretOptions,
} from '../../charges/pixApiCallbacks/intake';
import type { NoticeDeps } from '../../../db/subscriptions';
import {
  answerCobrNotice,
  answerRecNotice,
  cobrNoticeClaims,
  recNoticeClaims,
} from '../../charges/pixApiCallbacks/automaticoNotices';
import { ConnectionNotificationService } from './service';

/** Efí's notification token (its examples: a UUID), and our charge ids. */
const NOTICE_TOKEN = /^[A-Za-z0-9-]{1,64}$/;
const CHARGE_ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface ConnectionNotificationsDeps {
  sequelize: Sequelize;
  temporal: Client;
  taskQueue: string;
  logger: Logger;
  /** Opens each connection's webhook path secret (CREDENTIALS_ENCRYPTION_KEY's keyring). */
  keyring: MasterKeyring;
  /** The same options as the platform route's (ApiDeps.pixWebhookWrongSecrets). */
  wrongSecrets?: WrongSecretOptions;
}

/** The route with its real parts: the connections' secrets and the one claim path. */
export function connectionNotificationsApi(deps: ConnectionNotificationsDeps): Router {
  return connectionNotificationsRouter({
    connections: new ConnectionNotificationService({
      sequelize: deps.sequelize,
      keyring: deps.keyring,
      logger: deps.logger.child({ module: 'connection-notifications' }),
    }),
    claims: new ProviderCallbackService({
      sequelize: deps.sequelize,
      temporal: deps.temporal,
      taskQueue: deps.taskQueue,
      logger: deps.logger.child({ module: 'provider-callbacks' }),
    }),
    subscriptions: {
      sequelize: deps.sequelize,
      temporal: deps.temporal,
      logger: deps.logger.child({ module: 'pix-automatico-notices' }),
    },
    logger: deps.logger,
    wrongSecrets: deps.wrongSecrets,
  });
}

export function connectionNotificationsRouter(deps: {
  connections: Pick<ConnectionNotificationService, 'scopeOf'>;
  claims: Pick<ProviderCallbackService, 'handleReceivedPix' | 'handleSentPix' | 'handleBoletoNotice'>;
  /** Pix Automático's notices (/rec, /cobr): where the merchant's subscriptions are found and signalled. */
  subscriptions: NoticeDeps;
  logger: Logger;
  wrongSecrets?: WrongSecretOptions;
}): Router {
  const router = Router();
  const refuse = wrongSecretBrake({
    logger: deps.logger,
    path: '/webhooks/pix-api/connections/:connectionId/:secret/pix',
    options: deps.wrongSecrets,
  });

  const knownConnection: RequestHandler = async (req, res, next) => {
    const scope = await deps.connections.scopeOf(String(req.params.connectionId), String(req.params.secret ?? ''));
    if (!scope) return refuse(req, res, next);
    res.locals.merchantScope = scope;
    next();
  };

  const receive: RequestHandler = async (req, res) => {
    const body = parsePixNotification(req.body);
    const scope = res.locals.merchantScope as MerchantScope;
    res.json(await receivePixNotification(deps.claims, body, scope));
  };

  // Read only after the secret was found right: JSON, or the form Efí posts.
  const json = routeJsonBody({ largeLimit: '8kb', isLarge: () => false });
  const form = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 10 });
  const noticeBody: RequestHandler = (req, res, next) => {
    const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
    if (!hasBody || req.is('application/json')) return json(req, res, next);
    if (req.is('application/x-www-form-urlencoded')) return form(req, res, next);
    next(
      new ApiError(
        400,
        'VALIDATION_ERROR',
        'Content-Type must be application/x-www-form-urlencoded or application/json',
      ),
    );
  };

  const boletoNotice: RequestHandler = async (req, res) => {
    const token = (req.body as { notification?: unknown } | undefined)?.notification;
    const chargeId = String(req.params.chargeId);
    if (typeof token !== 'string' || !NOTICE_TOKEN.test(token) || !CHARGE_ID.test(chargeId))
      throw new ApiError(400, 'VALIDATION_ERROR', 'a boleto notification carries notification=<token>');
    const outcome = await deps.claims.handleBoletoNotice(chargeId, token, res.locals.merchantScope as MerchantScope);
    res.json({ outcome });
  };

  const recNotice: RequestHandler = async (req, res) => {
    const claims = recNoticeClaims(req.body);
    res.json(await answerRecNotice(deps.subscriptions, claims, res.locals.merchantScope as MerchantScope));
  };

  const cobrNotice: RequestHandler = async (req, res) => {
    const claims = cobrNoticeClaims(req.body);
    res.json(await answerCobrNotice(deps.subscriptions, claims, res.locals.merchantScope as MerchantScope));
  };

  const largeJson = routeJsonBody({ largeLimit: '1mb', isLarge: () => true });
  router.post('/:connectionId/:secret/boletos/:chargeId', knownConnection, noticeBody, boletoNotice);
  router.post('/:connectionId/:secret/rec', knownConnection, largeJson, recNotice);
  router.post('/:connectionId/:secret/cobr', knownConnection, largeJson, cobrNotice);
  router.post('/:connectionId/:secret/pix', knownConnection, largeJson, receive);
  return router;
}
