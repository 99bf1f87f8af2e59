/**
 * Builds the Express app from explicit dependencies (tests pass real ones on test ports).
 * createApp orders the app-wide middleware and mounts the route families, each built by its own
 * builder: the provider callbacks, the sellers, the partner routes under /v1 (payouts, receipts,
 * checkouts) and the application API; plus the public kernel routes (health, metrics, OpenAPI,
 * receipt verification, the hosted checkout page).
 */
import type { AccountModelDefault } from '../core/provider';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import express from 'express';
import passport from 'passport';
import type { Sequelize } from 'sequelize';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { parseKey } from '../core/crypto/secretBox';
import { receiptKeyFor } from '../core/receipts/verificationCode';
import type { StorageConfig } from '../core/storage/createObjectStore';
import type { PrivateReceiver } from '../core/net/destination';
import { DEFAULT_PLATFORM_INSTITUTION_NAME, type AuthConfig, type BuildConfig, type TrustProxy } from '../config';
import { ClientCredentialsStrategy, CLIENT_CREDENTIALS } from './identity/auth/clientCredentials';
import { requestSignature } from './identity/auth/requestSignature';
import { errorHandler, notFoundHandler } from './errors/errorHandler';
import { IdempotencyService } from './idempotency/idempotencyService';
import { jsonBody, requireJsonContentType } from './middleware/jsonBody';
import { methodNotAllowed } from './middleware/methodNotAllowed';
import { perIpRateLimit } from './middleware/rateLimit';
import { requestLogger } from './middleware/requestLogger';
import { traceId } from './middleware/traceId';
import { httpMetrics } from './middleware/httpMetrics';
import { createApiMetrics } from './metrics/registry';
import { metricsRouter } from './metrics/router';
import { healthRouter } from './health/router';
import { openApiRouter } from './openapi/router';
import { instrumentedClient } from './temporal/instrumentedClient';
import { Mailer } from './mail/mailer';
import { applicationApi, type ApplicationDeps } from './application/router';
import { BOLETOS_PATH } from './boletos/router';
import type { MedSettings } from './med/service';
import { PROVIDER_CALLBACK_PATH, providerCallbacksApi } from './charges/callbacks/router';
import type { WrongSecretOptions } from './charges/pixApiCallbacks/intake';
import {
  CONNECTION_CALLBACK_PATH,
  isConnectionBoletoNoticePath,
  PIX_API_CALLBACK_PATH,
} from '../core/pix/callbackPath';
import { credentialsKeyring, type MasterKeyring } from '../core/crypto/envelope';
import { connectionNotificationsApi } from './connections/notifications/router';
import { sellersApi } from './sellers/router';
import { PAYOUTS_PATH, payoutsApi } from './payouts/router';
import type { PayoutSettings } from './payouts/service';
import { pooledReceiptRenderer, ReceiptDocuments, type ReceiptRenderer } from './receipts/receiptDocuments';
import { receiptsRouter, RECEIPTS_PATH } from './receipts/downloads/router';
import { ReceiptService } from './receipts/downloads/service';
import { receiptVerifyRouter } from './receipts/router';
import { storedReceiptFacts, type LoadReceiptFacts } from './receipts/facts';
import { checkoutPageRouter, CHECKOUT_PAGE_PREFIX } from './checkouts/page/router';
import type { PaymentSimulator } from './checkouts/page/simulate';
import type { StreamOptions } from './checkouts/page/events';
import { CHECKOUTS_PATH, partnerCheckoutsApi } from './checkouts/partner/router';
import { PARTNER_SUBSCRIPTIONS_PATH, partnerSubscriptionsApi } from './subscriptions/router';
import { SubscriptionService } from './subscriptions/service';
import { subscriptionPageRouter, SUBSCRIPTION_PAGE_PREFIX } from './subscriptions/page/router';

export interface ApiDeps {
  sequelize: Sequelize;
  temporal: Client;
  taskQueue: string;
  logger: Logger;
  credentialsEncryptionKey: string;
  /**
   * Opens what is sealed in envelopes (a merchant connection's webhook path secret): api/server.ts
   * builds it from CREDENTIALS_ENCRYPTION_KEY. Absent: that key as the keyring's only key (`k1`).
   */
  credentialsKeyring?: MasterKeyring;
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
  /** ACCOUNT_MODEL_DEFAULT (config.ts): the account model of a merchant with no PSP connection; default platform. */
  accountModelDefault?: AccountModelDefault;
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
  /**
   * The clock of date rules (a subscription's first due date must be days after today); default the
   * wall clock. A test on a time-skipping server sets it to the server's time, as the sandbox's.
   */
  now?: () => Date;
  /** METRICS_TOKEN: bearer token of /metrics and /metrics/perf-db (api/metrics/access.ts). Unset: open outside production, 404 in production. */
  metricsToken?: string | null;
  /** The PSP account's balance in cents for /metrics (gateway_psp_balance_cents); absent: no gauge. */
  pspBalance?: (() => Promise<number | null>) | null;
  /** Pix infractions (MED): analysis deadline and reminder lead (MED_ANALYSIS_DEADLINE_SECONDS, MED_REMINDER_BEFORE_SECONDS). */
  med?: MedSettings;
  /** The checkout page's live-status streams: open streams per checkout and per client IP (CHECKOUT_STREAMS_PER_CHECKOUT, _PER_IP); tests also shorten the poll and lifetime. */
  checkoutStreams?: Partial<StreamOptions>;
}

export function createApp(deps: ApiDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', deps.trustProxy ?? false);

  // This app's own registry; the Temporal client counts its failures into it (one hook for every call).
  const metrics = createApiMetrics({ sequelize: deps.sequelize, pspBalance: deps.pspBalance });
  deps = { ...deps, temporal: instrumentedClient(deps.temporal, metrics) };
  const shared = sharedParts(deps);
  // Each family's builder takes what it needs from the app's dependencies and the shared parts.
  const family = { ...deps, ...shared, publicBaseUrl: publicBaseUrl(deps) };

  app.use(traceId);
  app.use(httpMetrics(metrics));
  app.use(requestLogger(deps.logger));
  // The notification routes (the platform's and the connections', both under PIX_API_CALLBACK_PATH)
  // limit their wrong secrets themselves (api/charges/pixApiCallbacks/intake.ts).
  app.use(
    perIpRateLimit({
      perMinute: deps.rateLimitPerMinute ?? 100,
      exemptPaths: ['/healthz', PROVIDER_CALLBACK_PATH, PIX_API_CALLBACK_PATH],
    }),
  );
  // A routed path with another method: 405 with Allow (the table is read from this app's routes on the first request).
  app.use(methodNotAllowed(app));
  app.use(shared.passport.initialize());
  const application = applicationApi(applicationDeps(deps, shared));
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
  // The hosted subscription page: public HTML, like the checkout page (anyone with the URL is the payer).
  app.use(SUBSCRIPTION_PAGE_PREFIX, subscriptionPageRouter({ sequelize: deps.sequelize }));
  // Avatar uploads carry image bodies: before the JSON-only gate below.
  app.use(application.beforeBody);
  // Efí posts a connected boleto's notice form-encoded: that one route reads JSON or form itself.
  app.use((req, res, next) =>
    isConnectionBoletoNoticePath(req.path) ? next() : requireJsonContentType(req, res, next),
  );
  // Payout batches take up to 8 MB, boleto batches 1 MB: their routers parse after authentication.
  // API Pix notifications (the platform's and the connections') are read after their secret is checked.
  app.use(jsonBody({ deferredPrefixes: [PAYOUTS_PATH, BOLETOS_PATH, PIX_API_CALLBACK_PATH] }));

  // Public, before the authenticated routers.
  app.use(
    healthRouter({
      sequelize: deps.sequelize,
      temporal: deps.temporal,
      smtpUrl: deps.smtpUrl ?? null,
      exposeBuildInfo: deps.exposeBuildInfo ?? false,
      build: deps.build,
    }),
  );
  const metricsAccess = { token: deps.metricsToken ?? null, production: shared.production };
  app.use(metricsRouter({ metrics, sequelize: deps.sequelize, access: metricsAccess }));
  app.use(openApiRouter()); // GET /openapi.json and /docs
  // GET /receipts/verify: anyone holding a receipt may check it; the per-IP limit above applies.
  const loadFacts = deps.loadReceiptFacts ?? storedReceiptFacts(shared.platformInstitution);
  app.use(receiptVerifyRouter({ key: shared.receiptKey, loadFacts }));

  // The route families, each behind its own authentication.
  app.use(providerCallbacksApi(deps)); // the provider's signature, or the notification URL's secret
  app.use(
    CONNECTION_CALLBACK_PATH, // a merchant's own PSP: its connection's notification URL secret
    connectionNotificationsApi({
      ...deps,
      keyring: shared.keyring,
      wrongSecrets: deps.pixWebhookWrongSecrets,
    }),
  );
  app.use(sellersApi({ ...family, destinations: webhookDestinations(deps) })); // /sellers and /rifeiro
  app.use(
    PAYOUTS_PATH,
    payoutsApi({ ...family, settings: deps.payoutSettings, accountModelDefault: deps.accountModelDefault }),
  );
  app.use(RECEIPTS_PATH, receiptsRouter({ ...family, service: shared.receipts }));
  // With its P0 error handler, on the path itself (api/checkouts/partner/router.ts).
  app.use(CHECKOUTS_PATH, partnerCheckoutsApi(family));
  app.use(
    PARTNER_SUBSCRIPTIONS_PATH,
    partnerSubscriptionsApi({
      ...family,
      service: new SubscriptionService({ ...family, production: shared.production }),
    }),
  );
  app.use(application.routes); // bearer tokens

  app.use(notFoundHandler);
  app.use(errorHandler(deps.logger));
  return app;
}

/** What several families share: client credentials, request signatures, idempotency, receipts. */
function sharedParts(deps: ApiDeps) {
  const encryptionKey = parseKey(deps.credentialsEncryptionKey);
  const auth = new passport.Passport();
  auth.use(new ClientCredentialsStrategy(encryptionKey));
  const platformInstitution = deps.platformInstitutionName ?? DEFAULT_PLATFORM_INSTITUTION_NAME;
  // One key for the codes printed on receipts and the codes GET /receipts/verify opens.
  const receiptKey = receiptKeyFor({
    receiptSigningKey: deps.receiptSigningKey,
    credentialsEncryptionKey: deps.credentialsEncryptionKey,
  });
  const documents = new ReceiptDocuments({
    sequelize: deps.sequelize,
    renderer: deps.receiptRenderer ?? pooledReceiptRenderer(deps.receiptRenderThreads),
    verificationKey: receiptKey,
    publicBaseUrl: publicBaseUrl(deps),
  });
  return {
    production: deps.production ?? false,
    platformInstitution,
    encryptionKey,
    /** The connections' envelope keyring (CREDENTIALS_ENCRYPTION_KEY as k1, CONNECTION_MASTER_KEYS): notifications, registration. */
    keyring: deps.credentialsKeyring ?? credentialsKeyring(deps.credentialsEncryptionKey),
    passport: auth,
    /** Client credentials, any scope: each family checks its own. */
    authenticate: auth.authenticate(CLIENT_CREDENTIALS, { session: false }),
    verifySignature: requestSignature({ sequelize: deps.sequelize, required: false }),
    requireSignature: requestSignature({ sequelize: deps.sequelize, required: true }),
    idempotency: new IdempotencyService(deps.sequelize, {
      ttlHours: deps.idempotencyTtlHours,
      logger: deps.logger.child({ module: 'idempotency' }),
    }),
    receiptKey,
    receipts: new ReceiptService(documents, platformInstitution),
  };
}

type SharedParts = ReturnType<typeof sharedParts>;

function applicationDeps(deps: ApiDeps, shared: SharedParts): ApplicationDeps {
  return {
    sequelize: deps.sequelize,
    encryptionKey: deps.credentialsEncryptionKey,
    keyring: shared.keyring,
    auth: deps.auth,
    passport: shared.passport,
    storage: deps.storage ?? temporaryStorage(deps.credentialsEncryptionKey),
    publicBaseUrl: publicBaseUrl(deps),
    mail: new Mailer({
      sequelize: deps.sequelize,
      temporal: deps.temporal,
      taskQueue: deps.taskQueue,
      encryptionKey: deps.credentialsEncryptionKey,
    }),
    charges: {
      sequelize: deps.sequelize,
      accountModelDefault: deps.accountModelDefault,
      temporal: deps.temporal,
      taskQueue: deps.taskQueue,
      defaultFee: deps.defaultFee,
      defaultChargeTtlSeconds: deps.defaultChargeTtlSeconds,
      publicBaseUrl: publicBaseUrl(deps),
    },
    idempotency: shared.idempotency,
    receipts: shared.receipts,
    verificationKey: shared.receiptKey,
    production: shared.production,
    med: deps.med,
    now: deps.now,
  };
}

function publicBaseUrl(deps: ApiDeps): string {
  return deps.publicBaseUrl ?? 'http://127.0.0.1';
}

function webhookDestinations(deps: ApiDeps) {
  return {
    allowPrivate: deps.allowPrivateWebhookDestinations ?? false,
    privateReceivers: deps.webhookPrivateReceivers ?? [],
  };
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
