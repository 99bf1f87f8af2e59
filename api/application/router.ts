/**
 * The application family (signed-in people, bearer tokens): its sign-in machinery built once and
 * the routers that share it. Mounted by api/app.ts. The family folder has no service of its own:
 * each route's is in its domain's folder.
 */
import { Router, type RequestHandler } from 'express';
import type { StorageConfig } from '../../core/storage/createObjectStore';
import { createObjectStore } from '../../core/storage/createObjectStore';
import { userStore } from '../../db/identity';
import { createAvatarRoutes } from '../identity/avatar';
import type passport from 'passport';

type Authenticator = InstanceType<typeof passport.Passport>;
import type { Sequelize } from 'sequelize';
import type { AuthConfig } from '../../config';
import { AccessTokens, derivedJwtSecret } from '../identity/auth/accessTokens';
import { AttemptThrottle } from '../identity/auth/attemptThrottle';
import { BearerStrategy, requireUser } from '../identity/auth/bearer';
import { cookieJar } from '../identity/auth/cookies';
import { CsrfTokens, csrfKey } from '../identity/auth/csrf';
import { accountsRouter } from '../identity/accounts/router';
import { dashboardRouter } from '../dashboard/router';
import { DashboardFigures } from '../dashboard/figures';
import { DashboardService } from '../dashboard/service';
import { AccountService } from '../identity/accounts/service';
import { sessionsRouter } from '../identity/sessions/router';
import { SessionService } from '../identity/sessions/service';
import { parseKey } from '../../core/crypto/secretBox';
import { ApiError } from '../errors/apiError';
import { twoFactorRouter } from '../identity/twoFactor/router';
import { chargesRouter } from '../charges/router';
import { AppChargeService, type AppChargeServiceDeps } from '../charges/service';
import { RefundService } from '../refunds/service';
import { refundsRouter } from '../refunds/router';
import { boletosRouter, BOLETOS_PATH } from '../boletos/router';
import { coursesRouter } from '../marketplace/courses/router';
import { CourseService } from '../marketplace/courses/service';
import { CourseContentService } from '../marketplace/courses/content';
import { BoletoService } from '../boletos/service';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import type { ReceiptService } from '../receipts/downloads/service';
import { TwoFactorService, type MailSender } from '../identity/twoFactor/service';
import { CHECKOUT_SESSIONS_PATH, checkoutSessionsRouter } from '../checkouts/sessions/router';
import { CheckoutSessionService } from '../checkouts/sessions/service';
import { SUBSCRIPTIONS_PATH, subscriptionsRouter } from '../subscriptions/router';
import { SubscriptionService } from '../subscriptions/service';
import { ENROLMENTS_PATH, enrolmentsRouter } from '../marketplace/enrolments/router';
import { EnrolmentService } from '../marketplace/enrolments/service';
import { RECONCILIATIONS_PATH, reconciliationsRouter } from '../reconciliations/router';
import { ReconciliationService } from '../reconciliations/service';
import { SETTLEMENTS_PATH, settlementsRouter } from '../settlements/router';
import { SettlementScheduleService } from '../settlements/schedule';
import { SettlementService } from '../settlements/service';
import { MED_INFRACTIONS_PATH, medRouter } from '../med/router';
import { CONNECTION_PATH, connectionRouter } from '../connections/router';
import { ConnectionService } from '../connections/service';
import type { MasterKeyring } from '../../core/crypto/envelope';
import { DEFAULT_MED_SETTINGS, MedService, type MedSettings } from '../med/service';

export interface ApplicationDeps {
  sequelize: Sequelize;
  encryptionKey: string;
  /** CREDENTIALS_ENCRYPTION_KEY's keyring: merchants' PSP connection secrets are sealed under it. */
  keyring: MasterKeyring;
  auth?: AuthConfig;
  passport: Authenticator;
  storage: StorageConfig;
  /** Where the local upload store's URLs point. */
  publicBaseUrl: string;
  /** What charges need to be issued (application API /charges). */
  charges: AppChargeServiceDeps;
  idempotency: IdempotencyService;
  /** Receipt PDFs (GET /charges/{id}/receipt). */
  receipts: ReceiptService;
  /** Sends e-mail codes and security notices; without one, the e-mail routes and every change that sends a notice answer 503. */
  mail?: MailSender;
  /** The receipts' verification key: certificates carry codes the same verify route opens. */
  verificationKey: Buffer;
  /** Production rules (https success/cancel URLs of checkout sessions). Default false (createApp passes its own). */
  production?: boolean;
  /** Pix infractions (MED): the analysis deadline and its reminder. Default: 7 days, 1 day before. */
  med?: MedSettings;
  /** The clock of date rules (a subscription's first due date); default the wall clock. */
  now?: () => Date;
}

const noMail: MailSender = {
  send: () => Promise.reject(new ApiError(503, 'SERVICE_UNAVAILABLE', 'e-mail is not configured on this server')),
};

export interface ApplicationApi {
  /** Routes whose bodies are not JSON (avatar uploads): mount before the app's JSON parser. */
  beforeBody: Router;
  routes: Router;
}

export function applicationApi(deps: ApplicationDeps): ApplicationApi {
  const secrets = deps.auth?.jwtSecrets.length ? deps.auth.jwtSecrets : [derivedJwtSecret(deps.encryptionKey)];
  const tokens = new AccessTokens(secrets);
  deps.passport.use(new BearerStrategy(tokens));
  const authenticated = requireUser(deps.passport);
  const cookies = cookieJar(deps.auth?.secureCookies ?? false);
  const csrf = new CsrfTokens(csrfKey(secrets[0]));
  const throttle = new AttemptThrottle(deps.sequelize);
  const passwordHashing = deps.auth?.passwordHashing ?? 'owasp';
  const sessions = new SessionService({ sequelize: deps.sequelize, tokens, throttle, passwordHashing });
  const accounts = new AccountService({ sequelize: deps.sequelize, sessions, throttle, passwordHashing });
  const twoFactor = new TwoFactorService({
    sequelize: deps.sequelize,
    encryptionKey: parseKey(deps.encryptionKey),
    throttle,
    sessions,
    mail: deps.mail ?? noMail,
  });

  const bearerSession = async (req: import('express').Request) => {
    const header = req.header('authorization');
    const match = header ? /^Bearer (\S{1,4096})$/.exec(header) : null;
    return match ? ((await tokens.verify(match[1]))?.sessionId ?? null) : null;
  };

  // The avatar routes read the caller from res.locals.user (their own seam).
  const avatarUser: RequestHandler = (req, res, next) =>
    authenticated(req, res, (err?: unknown) => {
      if (!err && req.account) res.locals.user = { id: req.account.user.id };
      next(err);
    });
  // One store for avatars and MED defence evidence (one local uploads route, one bucket).
  const store = createObjectStore(deps.storage, deps.publicBaseUrl);
  const beforeBody = createAvatarRoutes({
    requireUser: avatarUser,
    store,
    setAvatar: (userId, avatar) => userStore.setAvatar(userId, avatar),
  });

  const router = Router();
  router.use('/auth', sessionsRouter({ sessions, cookies, csrf, bearerSession }));
  router.use('/auth', accountsRouter({ accounts, requireUser: authenticated }));
  router.use('/auth', twoFactorRouter({ service: twoFactor, cookies, requireUser: authenticated }));
  // Before /dashboard's own routes: its router authenticates each of them, so nothing falls through.
  router.use(
    CONNECTION_PATH,
    connectionRouter({
      service: new ConnectionService({
        sequelize: deps.sequelize,
        keyring: deps.keyring,
        temporal: deps.charges.temporal,
        taskQueue: deps.charges.taskQueue,
        publicBaseUrl: deps.publicBaseUrl,
      }),
      idempotency: deps.idempotency,
      requireUser: authenticated,
    }),
  );
  router.use(
    '/dashboard',
    dashboardRouter({
      dashboard: new DashboardService({ sequelize: deps.sequelize, encryptionKey: deps.encryptionKey }),
      figures: new DashboardFigures(deps.sequelize),
      requireUser: authenticated,
    }),
  );
  const refunds = new RefundService({
    sequelize: deps.sequelize,
    temporal: deps.charges.temporal,
    taskQueue: deps.charges.taskQueue,
  });
  const charges = new AppChargeService(deps.charges);
  router.use(
    '/charges',
    refundsRouter({ charges, refunds, idempotency: deps.idempotency, requireUser: authenticated }),
  );
  router.use(
    '/charges',
    chargesRouter({
      service: charges,
      receipts: deps.receipts,
      idempotency: deps.idempotency,
      requireUser: authenticated,
    }),
  );
  const boletos = new BoletoService({
    sequelize: deps.sequelize,
    temporal: deps.charges.temporal,
    taskQueue: deps.charges.taskQueue,
    defaultFee: deps.charges.defaultFee,
    accountModelDefault: deps.charges.accountModelDefault,
    charges,
  });
  router.use(
    BOLETOS_PATH,
    boletosRouter({ service: boletos, idempotency: deps.idempotency, requireUser: authenticated }),
  );
  const checkoutSessions = new CheckoutSessionService({
    ...deps.charges,
    production: deps.production ?? false,
  });
  router.use(
    CHECKOUT_SESSIONS_PATH,
    checkoutSessionsRouter({ service: checkoutSessions, idempotency: deps.idempotency, requireUser: authenticated }),
  );
  router.use(
    SUBSCRIPTIONS_PATH,
    subscriptionsRouter({
      service: new SubscriptionService({ ...deps.charges, production: deps.production ?? false, now: deps.now }),
      idempotency: deps.idempotency,
      requireUser: authenticated,
    }),
  );
  const courses = new CourseService({ sequelize: deps.sequelize });
  router.use(
    '/courses',
    coursesRouter({ courses, content: new CourseContentService(courses), requireUser: authenticated }),
  );
  router.use(
    ENROLMENTS_PATH,
    enrolmentsRouter({
      service: new EnrolmentService({
        sequelize: deps.sequelize,
        verificationKey: deps.verificationKey,
        publicBaseUrl: deps.publicBaseUrl,
      }),
      requireUser: authenticated,
    }),
  );
  const reconciliations = new ReconciliationService({
    sequelize: deps.sequelize,
    temporal: deps.charges.temporal,
    taskQueue: deps.charges.taskQueue,
  });
  router.use(RECONCILIATIONS_PATH, reconciliationsRouter({ service: reconciliations, requireUser: authenticated }));
  const money = { sequelize: deps.sequelize, temporal: deps.charges.temporal, taskQueue: deps.charges.taskQueue };
  router.use(
    SETTLEMENTS_PATH,
    settlementsRouter({
      service: new SettlementService(money),
      schedules: new SettlementScheduleService(money),
      idempotency: deps.idempotency,
      requireUser: authenticated,
    }),
  );
  const med = new MedService({
    sequelize: deps.sequelize,
    temporal: deps.charges.temporal,
    taskQueue: deps.charges.taskQueue,
    settings: deps.med ?? DEFAULT_MED_SETTINGS,
    store,
  });
  router.use(
    MED_INFRACTIONS_PATH,
    medRouter({ service: med, idempotency: deps.idempotency, requireUser: authenticated }),
  );
  return { beforeBody, routes: router };
}
