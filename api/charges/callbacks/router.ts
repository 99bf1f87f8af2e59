/**
 * POST /webhooks/pix-gateway: payment callbacks from the Pix provider, authenticated by the
 * provider's HMAC signature over the raw body (not by client credentials). 200 only once the
 * event is durable in Temporal, so the provider retries anything we did not take. Every valid
 * callback and every signature failure is counted for GET /health (callbackHealth.ts).
 *
 * providerCallbacksApi is the family of both provider notification routes: this one and the API
 * Pix notifications (api/charges/pixApiCallbacks/router.ts), one service and one health record.
 */
import crypto from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import { verifyProviderCallbackSignature } from '../../../core/pix/providerSignature';
import { PROVIDER_CALLBACK_SIGNATURE_HEADER, PROVIDER_CALLBACK_TIMESTAMP_HEADER } from '../../../core/provider';
import { errors } from '../../errors/apiError';
import { parseOrThrow } from '../../validation/validate';
import { providerCallbackBody } from './schema';
import { ProviderCallbackService, type ProviderEvent } from '../../../db/charges';
import { CallbackHealth } from './callbackHealth';
import { pixApiCallbackRouter } from '../pixApiCallbacks/router';
import type { WrongSecretOptions } from '../pixApiCallbacks/intake';
import { PIX_API_CALLBACK_PATH } from '../../../core/pix/callbackPath';

export const PROVIDER_CALLBACK_PATH = '/webhooks/pix-gateway';

export interface ProviderCallbacksApiDeps {
  sequelize: Sequelize;
  temporal: Client;
  taskQueue: string;
  logger: Logger;
  /** The provider's HMAC key of POST /webhooks/pix-gateway. */
  providerCallbackSecret: string;
  /**
   * PIX_WEBHOOK_SECRET: the path segment of the API Pix notification URL registered at the PSP.
   * Absent (an app built without a PSP, e.g. a route-table test): a random one, so the route
   * exists but answers no one.
   */
  pixWebhookSecret?: string;
  /** Wrong secrets on the notification route: per-IP budget and log interval (api/charges/pixApiCallbacks/intake.ts). */
  pixWebhookWrongSecrets?: WrongSecretOptions;
}

export function providerCallbacksApi(deps: ProviderCallbacksApiDeps): Router {
  const service = new ProviderCallbackService({
    sequelize: deps.sequelize,
    temporal: deps.temporal,
    taskQueue: deps.taskQueue,
    logger: deps.logger.child({ module: 'provider-callbacks' }),
  });
  const health = new CallbackHealth({ sequelize: deps.sequelize, logger: deps.logger });
  const router = Router();
  router.use(
    PROVIDER_CALLBACK_PATH,
    providerCallbackRouter({ service, callbackSecret: deps.providerCallbackSecret, health }),
  );
  router.use(
    PIX_API_CALLBACK_PATH,
    pixApiCallbackRouter({
      service,
      webhookSecret: deps.pixWebhookSecret || crypto.randomBytes(32).toString('hex'),
      health,
      logger: deps.logger,
      wrongSecrets: deps.pixWebhookWrongSecrets,
      subscriptions: { sequelize: deps.sequelize, temporal: deps.temporal },
    }),
  );
  return router;
}

function providerCallbackRouter(deps: {
  service: ProviderCallbackService;
  callbackSecret: string;
  health: CallbackHealth;
}): Router {
  const router = Router();
  const receive: RequestHandler = async (req, res) => {
    const ok = verifyProviderCallbackSignature(
      req.rawBody ?? Buffer.alloc(0),
      req.header(PROVIDER_CALLBACK_TIMESTAMP_HEADER),
      req.header(PROVIDER_CALLBACK_SIGNATURE_HEADER),
      deps.callbackSecret,
      Date.now(),
    );
    if (!ok) {
      deps.health.signatureFailed();
      throw errors.invalidSignature();
    }
    deps.health.received();
    const body = parseOrThrow(providerCallbackBody, req.body, 'callback body');
    if (!body.charge && !body.boleto)
      throw errors.validation('callback body is invalid', {
        fields: [{ field: 'charge', message: 'charge or boleto is required' }],
      });
    const event = body as unknown as ProviderEvent;
    const outcome = await deps.service.handle(event);
    res.json({ received: true, outcome });
  };
  router.post('/', receive);
  // Public like the callback itself (the provider and uptime checks read it): platform-wide
  // figures only, no merchant data.
  router.get('/health', async (_req, res) => {
    res.json({ ok: true, timestamp: new Date().toISOString(), ...(await deps.health.report()) });
  });
  return router;
}
