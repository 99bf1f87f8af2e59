/**
 * The application API (signed-in people, bearer tokens): its sign-in machinery built once and
 * the routers that share it. Mounted by app.ts.
 */
import { Router } from 'express';
import type passport from 'passport';

type Authenticator = InstanceType<typeof passport.Passport>;
import type { Sequelize } from 'sequelize';
import type { AuthConfig } from '../config';
import { AccessTokens, derivedJwtSecret } from './auth/accessTokens';
import { AttemptThrottle } from './auth/attemptThrottle';
import { BearerStrategy, requireUser } from './auth/bearer';
import { cookieJar } from './auth/cookies';
import { CsrfTokens, csrfKey } from './auth/csrf';
import { accountsRouter } from './accounts/router';
import { dashboardRouter } from './dashboard/router';
import { DashboardService } from './dashboard/service';
import { AccountService } from './accounts/service';
import { sessionsRouter } from './sessions/router';
import { SessionService } from './sessions/service';

export interface ApplicationDeps {
  sequelize: Sequelize;
  encryptionKey: string;
  auth?: AuthConfig;
  passport: Authenticator;
}

export function applicationRoutes(deps: ApplicationDeps): Router {
  const secrets = deps.auth?.jwtSecrets.length ? deps.auth.jwtSecrets : [derivedJwtSecret(deps.encryptionKey)];
  const tokens = new AccessTokens(secrets);
  deps.passport.use(new BearerStrategy(tokens));
  const authenticated = requireUser(deps.passport);
  const cookies = cookieJar(deps.auth?.secureCookies ?? false);
  const csrf = new CsrfTokens(csrfKey(secrets[0]));
  const throttle = new AttemptThrottle(deps.sequelize);
  const sessions = new SessionService({ sequelize: deps.sequelize, tokens, throttle });
  const accounts = new AccountService({ sequelize: deps.sequelize, sessions });

  const bearerSession = async (req: import('express').Request) => {
    const header = req.header('authorization');
    const match = header ? /^Bearer (\S{1,4096})$/.exec(header) : null;
    return match ? ((await tokens.verify(match[1]))?.sessionId ?? null) : null;
  };

  const router = Router();
  router.use('/auth', sessionsRouter({ sessions, cookies, csrf, bearerSession }));
  router.use('/auth', accountsRouter({ accounts, requireUser: authenticated }));
  router.use('/dashboard', dashboardRouter({ dashboard: new DashboardService({ sequelize: deps.sequelize, encryptionKey: deps.encryptionKey }), requireUser: authenticated }));
  return router;
}
