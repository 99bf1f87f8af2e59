/**
 * Second-factor routes under /auth. Bearer: /2fa/status, /2fa/totp/setup|confirm,
 * /2fa/email/setup|confirm, /2fa/action/start|email|confirm. Public (they hold a login
 * challenge token instead): GET and POST /login/second-factor, POST /login/second-factor/email.
 */
import { Router, type RequestHandler } from 'express';
import { signedIn } from '../auth/bearer';
import type { CookieJar } from '../auth/cookies';
import { answerSignedIn } from '../sessions/router';
import { parseOrThrow } from '../../validation/validate';
import { presentedActionToken } from './actionTokens';
import {
  actionConfirmBody,
  actionEmailBody,
  actionStartBody,
  codeBody,
  loginEmailBody,
  loginSecondFactorBody,
} from './schema';
import { twoFactorErrors, type TwoFactorService } from './service';

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

type Names =
  | 'status'
  | 'totpSetup'
  | 'totpConfirm'
  | 'emailSetup'
  | 'emailConfirm'
  | 'loginMethods'
  | 'loginComplete'
  | 'loginEmail'
  | 'actionStart'
  | 'actionEmail'
  | 'actionConfirm';

function twoFactorHandlers(service: TwoFactorService, cookies: CookieJar): Record<Names, RequestHandler> {
  return {
    status: async (req, res) => {
      res.json(await service.status(signedIn(req).user.id));
    },
    totpSetup: async (req, res) => {
      res.setHeader('Cache-Control', 'no-store');
      res.json(await service.totpSetup(signedIn(req).user, presentedActionToken(req)));
    },
    totpConfirm: async (req, res) => {
      const body = parseOrThrow(codeBody, req.body);
      res.setHeader('Cache-Control', 'no-store');
      res.json(await service.totpConfirm(signedIn(req).user, body.code, presentedActionToken(req)));
    },
    emailSetup: async (req, res) => {
      res.json(await service.emailSetup(signedIn(req).user, presentedActionToken(req)));
    },
    emailConfirm: async (req, res) => {
      const body = parseOrThrow(codeBody, req.body);
      res.setHeader('Cache-Control', 'no-store');
      res.json(await service.emailConfirm(signedIn(req).user, body.code, presentedActionToken(req)));
    },
    loginMethods: async (req, res) => {
      // The header keeps the token out of URLs (and access logs); the query works too.
      const token =
        req.header('x-challenge-token') ??
        (typeof req.query.challengeToken === 'string' ? req.query.challengeToken : undefined);
      if (!token) throw twoFactorErrors.invalidChallenge();
      res.json(await service.loginMethods(token));
    },
    loginComplete: async (req, res) => {
      const body = parseOrThrow(loginSecondFactorBody, req.body);
      answerSignedIn(res, cookies, await service.loginComplete(body.challengeToken, body.code));
    },
    loginEmail: async (req, res) => {
      const body = parseOrThrow(loginEmailBody, req.body);
      res.json(await service.loginEmail(body.challengeToken));
    },
    actionStart: async (req, res) => {
      const body = parseOrThrow(actionStartBody, req.body);
      res.json(await service.actionStart(signedIn(req).user, body.action));
    },
    actionEmail: async (req, res) => {
      const body = parseOrThrow(actionEmailBody, req.body);
      res.json(await service.actionEmail(signedIn(req).user, body.challengeId));
    },
    actionConfirm: async (req, res) => {
      const body = parseOrThrow(actionConfirmBody, req.body);
      res.setHeader('Cache-Control', 'no-store');
      res.json(await service.actionConfirm(signedIn(req).user, body.challengeId, body.code));
    },
  };
}
