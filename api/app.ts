/** Builds the Express app from explicit dependencies (tests pass real ones on test ports). */
import express from 'express';
import passport from 'passport';
import type { Sequelize } from 'sequelize';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { parseKey } from '../core/crypto/secretBox';
import { ClientCredentialsStrategy, CLIENT_CREDENTIALS } from './auth/clientCredentials';
import { errorHandler, notFoundHandler } from './errors/errorHandler';
import { healthRouter } from './health/router';
import { openApiRouter } from './openapi/router';
import { IdempotencyService } from './idempotency/idempotencyService';
import { jsonBody, requireJsonContentType } from './middleware/jsonBody';
import { traceId } from './middleware/traceId';
import { providerCallbackRouter } from './providerCallbacks/router';
import { ProviderCallbackService } from './providerCallbacks/service';
import { legacyDeprecation, sellersRouter } from './sellers/router';
import { SellerPixService } from './sellers/pix/service';
import { WithdrawalService } from './sellers/saques/service';
import { WebhookService } from './sellers/webhooks/service';
import { DeliveryService } from './sellers/deliveries/service';
import { requestSignature } from './auth/requestSignature';
import { defaultPayoutSettings, PayoutService, type PayoutSettings } from './payouts/service';
import { payoutsRouter } from './payouts/router';
import { perIpRateLimit } from './middleware/rateLimit';
import { requestLogger } from './middleware/requestLogger';

export interface ApiDeps {
  sequelize: Sequelize;
  temporal: Client;
  taskQueue: string;
  logger: Logger;
  credentialsEncryptionKey: string;
  providerCallbackSecret: string;
  defaultFee: { bps: number; fixedCents: number };
  defaultChargeTtlSeconds: number;
  idempotencyTtlHours: number;
  /** Requests per minute per IP (spec: 100 in production, 1000 in development). */
  rateLimitPerMinute?: number;
  /** Local and private webhook destinations are allowed in development and tests only. */
  allowPrivateWebhookDestinations?: boolean;
  /** Chunking and concurrency of payout batches. */
  payoutSettings?: PayoutSettings;
}

export function createApp(deps: ApiDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);

  const encryptionKey = parseKey(deps.credentialsEncryptionKey);
  const auth = new passport.Passport();
  auth.use(new ClientCredentialsStrategy(encryptionKey));
  const authenticate = auth.authenticate(CLIENT_CREDENTIALS, { session: false });

  const idempotency = new IdempotencyService(deps.sequelize, { ttlHours: deps.idempotencyTtlHours });
  const destinations = { allowPrivate: deps.allowPrivateWebhookDestinations ?? false };
  const sellerPix = new SellerPixService({
    sequelize: deps.sequelize,
    temporal: deps.temporal,
    taskQueue: deps.taskQueue,
    idempotency,
    defaultFee: deps.defaultFee,
    defaultChargeTtlSeconds: deps.defaultChargeTtlSeconds,
    encryptionKey,
    destinations,
  });
  const webhooks = new WebhookService({ encryptionKey, destinations, idempotency });
  const withdrawals = new WithdrawalService({ temporal: deps.temporal, taskQueue: deps.taskQueue, idempotency });

  app.use(traceId);
  app.use(requestLogger(deps.logger));
  app.use(perIpRateLimit({ perMinute: deps.rateLimitPerMinute ?? 100 }));
  app.use(auth.initialize());
  app.use(requireJsonContentType);
  app.use(jsonBody([{ prefix: '/v1/payouts/batches', limit: '8mb' }]));

  app.use(healthRouter({ sequelize: deps.sequelize, temporal: deps.temporal }));
  app.use(openApiRouter()); // GET /openapi.json and /docs: public, before the authenticated routers
  app.use(
    '/webhooks/pix-gateway',
    providerCallbackRouter({
      service: new ProviderCallbackService({ sequelize: deps.sequelize, temporal: deps.temporal, taskQueue: deps.taskQueue }),
      callbackSecret: deps.providerCallbackSecret,
    }),
  );
  const verifySignature = requestSignature({ sequelize: deps.sequelize, required: false });
  const deliveries = new DeliveryService({ sequelize: deps.sequelize, temporal: deps.temporal, taskQueue: deps.taskQueue });
  const sellers = sellersRouter({ authenticate, verifySignature, sellerPix, webhooks, withdrawals, deliveries, idempotency });
  app.use('/sellers', sellers);
  app.use('/rifeiro', legacyDeprecation, sellers);
  const payouts = new PayoutService({
    sequelize: deps.sequelize,
    temporal: deps.temporal,
    taskQueue: deps.taskQueue,
    idempotency,
    settings: deps.payoutSettings ?? defaultPayoutSettings,
  });
  const requireSignature = requestSignature({ sequelize: deps.sequelize, required: true });
  app.use('/v1/payouts/batches', payoutsRouter({ authenticate, requireSignature, service: payouts, idempotency }));

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
