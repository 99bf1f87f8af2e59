/** Builds the Express app from explicit dependencies (tests pass real ones on test ports). */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import express, { type RequestHandler } from 'express';
import passport from 'passport';
import type { Sequelize } from 'sequelize';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { parseKey } from '../core/crypto/secretBox';
import { ClientCredentialsStrategy, CLIENT_CREDENTIALS } from './identity/auth/clientCredentials';
import { errorHandler, notFoundHandler } from './errors/errorHandler';
import { healthRouter } from './health/router';
import { openApiRouter } from './openapi/router';
import { IdempotencyService } from './idempotency/idempotencyService';
import { BOLETOS_PATH } from './boletos/router';
import { jsonBody, requireJsonContentType, routeJsonBody } from './middleware/jsonBody';
import { requireScope, sellerScopeFamily } from './identity/auth/scopes';
import { DEFAULT_PLATFORM_INSTITUTION_NAME, type AuthConfig, type BuildConfig, type TrustProxy } from '../config';
import { applicationApi } from './applicationRoutes';
import type { MedSettings } from './med/service';
import { Mailer } from './mail/mailer';
import type { StorageConfig } from '../core/storage/createObjectStore';
import { methodNotAllowed } from './middleware/methodNotAllowed';
import { traceId } from './middleware/traceId';
import { providerCallbackRouter } from './charges/callbacks/router';
import { ProviderCallbackService } from '../db/charges';
import { legacyDeprecation, sellersRouter } from './sellers/router';
import { SellerPixService } from './charges/sellers/service';
import { WithdrawalService } from './withdrawals/service';
import { WebhookService } from './events/endpoints/service';
import { DeliveryService } from './events/deliveries/service';
import { requestSignature } from './identity/auth/requestSignature';
import { defaultPayoutSettings, PayoutService, type PayoutSettings } from './payouts/service';
import { payoutsRouter } from './payouts/router';
import { perIpRateLimit } from './middleware/rateLimit';
import { pooledReceiptRenderer, ReceiptDocuments, type ReceiptRenderer } from './receipts/receiptDocuments';
import { receiptsRouter, RECEIPTS_PATH } from './receipts/downloads/router';
import { ReceiptService } from './receipts/downloads/service';
import { requestLogger } from './middleware/requestLogger';
import { receiptVerifyRouter } from './receipts/verify';
import { storedReceiptFacts, type LoadReceiptFacts } from './receipts/facts';
import { receiptKeyFor } from '../core/receipts/verificationCode';
import { checkoutPageRouter, CHECKOUT_PAGE_PREFIX } from './checkouts/page/router';
import type { PaymentSimulator } from './checkouts/page/simulate';
import type { StreamOptions } from './checkouts/page/events';
import { CHECKOUTS_PATH, partnerCheckoutsRouter } from './checkouts/partner/router';
import { PartnerCheckoutService } from './checkouts/partner/service';
import { p0Errors } from './checkouts/partner/envelope';
import { createApiMetrics } from './metrics/registry';
import { metricsRouter } from './metrics/router';
import { httpMetrics } from './middleware/httpMetrics';
import { instrumentedClient } from './temporal/instrumentedClient';
import { CallbackHealth } from './charges/callbacks/callbackHealth';
import { pixApiCallbackRouter, type WrongSecretOptions } from './charges/pixApiCallbacks/router';
import { PIX_API_CALLBACK_PATH } from '../core/pix/callbackPath';
import type { PrivateReceiver } from '../core/net/destination';

export interface ApiDeps {
  sequelize: Sequelize;
  temporal: Client;
  taskQueue: string;
  logger: Logger;
  credentialsEncryptionKey: string;
  providerCallbackSecret: string;
  /**
   * PIX_WEBHOOK_SECRET: the path segment of the API Pix notification URL registered at the PSP.
   * Absent (an app built without a PSP, e.g. a route-table test): a random one, so the route
   * exists but answers no one.
   */
  pixWebhookSecret?: string;
  /**
   * Requests to the notification route with a wrong secret: per-IP budget (default 10 a minute)
   * and how often their count is logged (default every minute). Tests shorten both.
   */
  pixWebhookWrongSecrets?: WrongSecretOptions;
  defaultFee: { bps: number; fixedCents: number };
  defaultChargeTtlSeconds: number;
  idempotencyTtlHours: number;
  /** Requests per minute per IP (spec: 100 in production, 1000 in development). */
  rateLimitPerMinute?: number;
  /** Express 'trust proxy' (TRUST_PROXY): which hops may set X-Forwarded-For. Default false. */
  trustProxy?: TrustProxy;
  /** /healthz and /ready show the git SHA and build id (EXPOSE_BUILD_INFO). Default false. */
  exposeBuildInfo?: boolean;
  /** GIT_SHA, BUILD_ID, BUILT_AT (config.build); absent: the git checkout's SHA, if any. */
  build?: BuildConfig;
  /** Local and private webhook destinations are allowed in development and tests only. */
  allowPrivateWebhookDestinations?: boolean;
  /** WEBHOOK_PRIVATE_RECEIVERS: private `ip:port`s the merchants each names may use all the same (production too). */
  webhookPrivateReceivers?: readonly PrivateReceiver[];
  /** Chunking and concurrency of payout batches. */
  payoutSettings?: PayoutSettings;
  /** Sign-in of the application API; keys derived from the encryption key when none are given (development, tests). */
  auth?: AuthConfig;
  /** Uploaded files (avatars). Default: a local store in a temporary directory (tests, tools). */
  storage?: StorageConfig;
  /** This API's public base URL (links to locally stored uploads). */
  publicBaseUrl?: string;
  /** SMTP_URL: /ready reports whether its server answers. Mail itself is sent by the worker. */
  smtpUrl?: string | null;
  /** RECEIPT_SIGNING_KEY; empty or absent: derived from the encryption key (development, tests). */
  receiptSigningKey?: string;
  /** Where GET /receipts/verify reads a document's facts. Default: our database (api/receipts/facts.ts). */
  loadReceiptFacts?: LoadReceiptFacts;
  /** Draws receipt PDFs; default: the worker-thread pool (api/receipts/receiptDocuments.ts). */
  receiptRenderer?: ReceiptRenderer;
  /** RECEIPT_RENDER_THREADS: that pool's size; absent or null: the cores but one, 1 to 4. */
  receiptRenderThreads?: number | null;
  /** PLATFORM_INSTITUTION_NAME: our payment institution on charges, withdrawals and receipts. Default: config.ts's. */
  platformInstitutionName?: string;
  /** The checkout page's "Simular pagamento" (api/checkouts/page/simulate.ts); absent or null: none (production). */
  paymentSimulator?: PaymentSimulator | null;
  /** Production rules (https return URLs, signed POST /v1/checkouts); api/server.ts sets it from NODE_ENV. Default false. */
  production?: boolean;
  /** METRICS_TOKEN: bearer token of /metrics and /metrics/perf-db (api/metrics/access.ts). Unset: open outside production, 404 in production. */
  metricsToken?: string | null;
  /** The PSP account's balance in cents for /metrics (gateway_psp_balance_cents); absent: no gauge. */
  pspBalance?: (() => Promise<number | null>) | null;
  /** Pix infractions (MED): analysis deadline and reminder lead (MED_ANALYSIS_DEADLINE_SECONDS, MED_REMINDER_BEFORE_SECONDS). */
  med?: MedSettings;
  /** The checkout page's live-status streams: open streams per checkout and per client IP (CHECKOUT_STREAMS_PER_CHECKOUT, _PER_IP); tests also shorten the poll and lifetime. */
  checkoutStreams?: Partial<StreamOptions>;
}

const PROVIDER_CALLBACK_PATH = '/webhooks/pix-gateway';
const PAYOUTS_PATH = '/v1/payouts/batches';

/** Several middleware as one (a router takes one `authenticate` handler). */
function inOrder(first: RequestHandler, second: RequestHandler): RequestHandler {
  return (req, res, next) => first(req, res, (err?: unknown) => (err ? next(err) : second(req, res, next)));
}

/** Uploads kept in a fresh temporary directory, signed with a key derived from the encryption key. */
function temporaryStorage(encryptionKey: string): StorageConfig {
  const uploadsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gateway-uploads-'));
  const uploadSigningSecret = crypto
    .createHmac('sha256', encryptionKey)
    .update('pix-gateway upload signing v1')
    .digest('hex');
  return { uploadsDir, uploadSigningSecret, s3: null };
}

export function createApp(deps: ApiDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy ?? false);

  // This app's own registry; the Temporal client counts its failures into it (one hook for every call).
  const metrics = createApiMetrics({ sequelize: deps.sequelize, pspBalance: deps.pspBalance });
  deps = { ...deps, temporal: instrumentedClient(deps.temporal, metrics) };
  const production = deps.production ?? false;
  const platformInstitution = deps.platformInstitutionName ?? DEFAULT_PLATFORM_INSTITUTION_NAME;

  const encryptionKey = parseKey(deps.credentialsEncryptionKey);
  const auth = new passport.Passport();
  auth.use(new ClientCredentialsStrategy(encryptionKey));
  const authenticate = auth.authenticate(CLIENT_CREDENTIALS, { session: false });

  const idempotency = new IdempotencyService(deps.sequelize, {
    ttlHours: deps.idempotencyTtlHours,
    logger: deps.logger.child({ module: 'idempotency' }),
  });
  const destinations = {
    allowPrivate: deps.allowPrivateWebhookDestinations ?? false,
    privateReceivers: deps.webhookPrivateReceivers ?? [],
  };
  const sellerPix = new SellerPixService({
    sequelize: deps.sequelize,
    temporal: deps.temporal,
    taskQueue: deps.taskQueue,
    defaultFee: deps.defaultFee,
    defaultChargeTtlSeconds: deps.defaultChargeTtlSeconds,
    encryptionKey,
    destinations,
    platformInstitution,
  });
  const webhooks = new WebhookService({
    encryptionKey,
    destinations,
    temporal: deps.temporal,
    taskQueue: deps.taskQueue,
  });
  const withdrawals = new WithdrawalService({
    temporal: deps.temporal,
    taskQueue: deps.taskQueue,
    platformInstitution,
  });
  // One key for the codes printed on receipts and the codes GET /receipts/verify opens.
  const receiptKey = receiptKeyFor({
    receiptSigningKey: deps.receiptSigningKey,
    credentialsEncryptionKey: deps.credentialsEncryptionKey,
  });
  const receipts = new ReceiptService(
    new ReceiptDocuments({
      sequelize: deps.sequelize,
      renderer: deps.receiptRenderer ?? pooledReceiptRenderer(deps.receiptRenderThreads),
      verificationKey: receiptKey,
      publicBaseUrl: deps.publicBaseUrl ?? 'http://127.0.0.1',
    }),
    platformInstitution,
  );

  app.use(traceId);
  app.use(httpMetrics(metrics));
  app.use(requestLogger(deps.logger));
  // The notification route limits its wrong secrets itself (api/charges/pixApiCallbacks/router.ts).
  app.use(
    perIpRateLimit({
      perMinute: deps.rateLimitPerMinute ?? 100,
      exemptPaths: ['/healthz', PROVIDER_CALLBACK_PATH, PIX_API_CALLBACK_PATH],
    }),
  );
  // A routed path with another method: 405 with Allow (the table is read from this app's routes on the first request).
  app.use(methodNotAllowed(app));
  app.use(auth.initialize());
  const application = applicationApi({
    sequelize: deps.sequelize,
    encryptionKey: deps.credentialsEncryptionKey,
    auth: deps.auth,
    passport: auth,
    storage: deps.storage ?? temporaryStorage(deps.credentialsEncryptionKey),
    publicBaseUrl: deps.publicBaseUrl ?? 'http://127.0.0.1',
    mail: new Mailer({
      sequelize: deps.sequelize,
      temporal: deps.temporal,
      taskQueue: deps.taskQueue,
      encryptionKey: deps.credentialsEncryptionKey,
    }),
    charges: {
      temporal: deps.temporal,
      taskQueue: deps.taskQueue,
      defaultFee: deps.defaultFee,
      defaultChargeTtlSeconds: deps.defaultChargeTtlSeconds,
      publicBaseUrl: deps.publicBaseUrl ?? 'http://127.0.0.1',
    },
    idempotency,
    receipts,
    verificationKey: receiptKey,
    production,
    med: deps.med,
  });
  // The hosted checkout page: public HTML (anyone with the URL is the buyer), its form posts are
  // not JSON: before the JSON-only gate and outside every authenticated router.
  app.use(
    CHECKOUT_PAGE_PREFIX,
    checkoutPageRouter({
      sequelize: deps.sequelize,
      simulator: deps.paymentSimulator ?? null,
      streams: deps.checkoutStreams,
    }),
  );
  // Avatar uploads carry image bodies: before the JSON-only gate below.
  app.use(application.beforeBody);
  app.use(requireJsonContentType);
  // Payout batches take up to 8 MB, boleto batches 1 MB: their routers parse after authentication.
  // API Pix notifications are read after their secret is checked (api/charges/pixApiCallbacks/router.ts).
  app.use(jsonBody({ deferredPrefixes: [PAYOUTS_PATH, BOLETOS_PATH, PIX_API_CALLBACK_PATH] }));

  app.use(
    healthRouter({
      sequelize: deps.sequelize,
      temporal: deps.temporal,
      smtpUrl: deps.smtpUrl ?? null,
      exposeBuildInfo: deps.exposeBuildInfo ?? false,
      build: deps.build,
    }),
  );
  app.use(
    metricsRouter({ metrics, sequelize: deps.sequelize, access: { token: deps.metricsToken ?? null, production } }),
  );
  app.use(openApiRouter()); // GET /openapi.json and /docs: public, before the authenticated routers
  // GET /receipts/verify: public too (anyone holding a receipt may check it); the per-IP limit above applies.
  app.use(
    receiptVerifyRouter({
      key: receiptKey,
      loadFacts: deps.loadReceiptFacts ?? storedReceiptFacts(platformInstitution),
    }),
  );
  const callbackService = new ProviderCallbackService({
    sequelize: deps.sequelize,
    temporal: deps.temporal,
    taskQueue: deps.taskQueue,
    logger: deps.logger.child({ module: 'provider-callbacks' }),
  });
  const callbackHealth = new CallbackHealth({ sequelize: deps.sequelize, logger: deps.logger });
  app.use(
    PROVIDER_CALLBACK_PATH,
    providerCallbackRouter({
      service: callbackService,
      callbackSecret: deps.providerCallbackSecret,
      health: callbackHealth,
    }),
  );
  app.use(
    PIX_API_CALLBACK_PATH,
    pixApiCallbackRouter({
      service: callbackService,
      webhookSecret: deps.pixWebhookSecret || crypto.randomBytes(32).toString('hex'),
      health: callbackHealth,
      logger: deps.logger,
      wrongSecrets: deps.pixWebhookWrongSecrets,
    }),
  );
  const verifySignature = requestSignature({ sequelize: deps.sequelize, required: false });
  const deliveries = new DeliveryService({
    sequelize: deps.sequelize,
    temporal: deps.temporal,
    taskQueue: deps.taskQueue,
  });
  const sellers = sellersRouter({
    authenticate: inOrder(authenticate, requireScope(sellerScopeFamily)),
    verifySignature,
    sellerPix,
    webhooks,
    withdrawals,
    deliveries,
    idempotency,
  });
  app.use('/sellers', sellers);
  app.use('/rifeiro', legacyDeprecation, sellers);
  const payouts = new PayoutService({
    sequelize: deps.sequelize,
    temporal: deps.temporal,
    taskQueue: deps.taskQueue,
    settings: deps.payoutSettings ?? defaultPayoutSettings,
  });
  const requireSignature = requestSignature({ sequelize: deps.sequelize, required: true });
  const payoutBody = routeJsonBody({ largeLimit: '8mb', isLarge: (req) => req.method === 'POST' && req.path === '/' });
  app.use(
    PAYOUTS_PATH,
    payoutsRouter({ authenticate, parseBody: payoutBody, requireSignature, service: payouts, idempotency }),
  );
  app.use(RECEIPTS_PATH, receiptsRouter({ authenticate, requireSignature, service: receipts }));
  const partnerCheckouts = new PartnerCheckoutService({
    sequelize: deps.sequelize,
    temporal: deps.temporal,
    taskQueue: deps.taskQueue,
    defaultFee: deps.defaultFee,
    defaultChargeTtlSeconds: deps.defaultChargeTtlSeconds,
    publicBaseUrl: deps.publicBaseUrl ?? 'http://127.0.0.1',
    production,
  });
  // p0Errors on the path itself: errors raised before the router (rate limit, body parser) answer in the P0 envelope too.
  app.use(
    CHECKOUTS_PATH,
    partnerCheckoutsRouter({
      authenticate,
      verifySignature,
      createSignature: production ? requireSignature : verifySignature,
      service: partnerCheckouts,
      idempotency,
    }),
    p0Errors(deps.logger),
  );

  app.use(application.routes);

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}
