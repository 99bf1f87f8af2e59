/**
 * Session routes under /auth: GET /csrf, POST /login, POST /refresh (refresh cookie + CSRF),
 * POST /logout (refresh cookie + CSRF, or a bearer token). Logout is idempotent: an unknown or
 * already ended session still answers 200 and clears the cookie.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { CookieJar } from '../auth/cookies';
import { REFRESH_COOKIE, readCookie } from '../auth/cookies';
import type { CsrfTokens } from '../auth/csrf';
import { csrfInvalid } from '../auth/csrf';
import { parseOrThrow } from '../../validation/validate';
import { loginBody } from './schema';
import { sessionErrors, type IssuedTokens, type LoginResult, type SessionService } from './service';

export interface SessionsRouterDeps {
  sessions: SessionService;
  cookies: CookieJar;
  csrf: CsrfTokens;
  /** Verifies a bearer token when one is sent (logout without the cookie). */
  bearerSession: (req: Request) => Promise<string | null>;
}

export function sessionsRouter(deps: SessionsRouterDeps): Router {
  const h = sessionHandlers(deps);
  const router = Router();
  router.get('/csrf', h.csrf);
  router.post('/login', h.login);
  router.post('/refresh', h.refresh);
  router.post('/logout', h.logout);
  return router;
}

/** The normal login answer: tokens in the body, the refresh token also as its cookie. */
export function answerSignedIn(res: Response, cookies: CookieJar, tokens: IssuedTokens): void {
  cookies.setRefresh(res, tokens.refreshToken);
  res.setHeader('Cache-Control', 'no-store');
  res.json({
    message: 'logged in',
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    expiresIn: tokens.expiresIn,
  });
}

function answerLogin(res: Response, cookies: CookieJar, result: LoginResult): void {
  if (result.kind === 'SIGNED_IN') return answerSignedIn(res, cookies, result.tokens);
  res.setHeader('Cache-Control', 'no-store');
  res.json({
    message: 'second factor required',
    secondFactorRequired: true,
    challengeToken: result.challengeToken,
    methods: result.methods,
  });
}

function sessionHandlers(deps: SessionsRouterDeps): Record<'csrf' | 'login' | 'refresh' | 'logout', RequestHandler> {
  return {
    csrf: (_req, res) => {
      const token = deps.csrf.issue();
      deps.cookies.setCsrf(res, token);
      res.setHeader('Cache-Control', 'no-store');
      res.json({ csrfToken: token });
    },
    login: async (req, res) => {
      const body = parseOrThrow(loginBody, req.body);
      answerLogin(res, deps.cookies, await deps.sessions.login(body.email, body.password, req.ip));
    },
    refresh: async (req, res) => {
      if (!deps.csrf.check(req)) throw csrfInvalid();
      const presented = readCookie(req, REFRESH_COOKIE);
      if (!presented) throw sessionErrors.refreshMissing();
      const tokens = await deps.sessions.refresh(presented).catch((err: unknown) => {
        // A dead token stays dead in the browser too.
        if ((err as { status?: number }).status === 401) deps.cookies.clearRefresh(res);
        throw err;
      });
      deps.cookies.setRefresh(res, tokens.refreshToken);
      res.setHeader('Cache-Control', 'no-store');
      res.json({ accessToken: tokens.accessToken, expiresIn: tokens.expiresIn });
    },
    logout: async (req, res) => {
      const cookie = readCookie(req, REFRESH_COOKIE);
      let sessionId: string | null = null;
      if (cookie) {
        // The cookie is an ambient credential: a cross-site page could send it. CSRF first.
        if (!deps.csrf.check(req)) throw csrfInvalid();
        sessionId = await deps.sessions.sessionOfRefreshToken(cookie);
      }
      sessionId ??= await deps.bearerSession(req);
      if (sessionId) await deps.sessions.end(sessionId, 'logout');
      deps.cookies.clearRefresh(res);
      res.json({ message: 'logged out' });
    },
  };
}
