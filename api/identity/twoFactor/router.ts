/**
 * Second-factor routes under /auth. Bearer: /2fa/status, /2fa/totp/setup|confirm,
 * /2fa/email/setup|confirm, /2fa/action/start|email|confirm. Public (they hold a login
 * challenge token instead): GET and POST /login/second-factor, POST /login/second-factor/email.
 */
import { Router, type RequestHandler } from 'express';
import type { CookieJar } from '../auth/cookies';
import { twoFactorHandlers } from './handler';
import type { TwoFactorService } from './service';

export function twoFactorRouter(deps: {
  service: TwoFactorService;
  cookies: CookieJar;
  requireUser: RequestHandler;
}): Router {
  const h = twoFactorHandlers(deps.service, deps.cookies);
  const router = Router();
  router.get('/login/second-factor', h.loginMethods);
  router.post('/login/second-factor', h.loginComplete);
  router.post('/login/second-factor/email', h.loginEmail);
  const user = deps.requireUser;
  router.get('/2fa/status', user, h.status);
  router.post('/2fa/totp/setup', user, h.totpSetup);
  router.post('/2fa/totp/confirm', user, h.totpConfirm);
  router.post('/2fa/email/setup', user, h.emailSetup);
  router.post('/2fa/email/confirm', user, h.emailConfirm);
  router.post('/2fa/action/start', user, h.actionStart);
  router.post('/2fa/action/email', user, h.actionEmail);
  router.post('/2fa/action/confirm', user, h.actionConfirm);
  return router;
}
