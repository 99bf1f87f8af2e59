/** HTTP ↔ TwoFactorService (router.ts). */
import type { RequestHandler } from 'express';
import { signedIn } from '../auth/bearer';
import type { CookieJar } from '../auth/cookies';
import { answerSignedIn } from '../sessions/handler';
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

export function twoFactorHandlers(service: TwoFactorService, cookies: CookieJar): Record<Names, RequestHandler> {
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
