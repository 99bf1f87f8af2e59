/**
 * Session routes under /auth: GET /csrf, POST /login, POST /refresh (refresh cookie + CSRF),
 * POST /logout (refresh cookie + CSRF, or a bearer token). Logout is idempotent: an unknown or
 * already ended session still answers 200 and clears the cookie.
 */
import { Router } from 'express';
import { sessionHandlers, type SessionHandlerDeps } from './handler';

export function sessionsRouter(deps: SessionHandlerDeps): Router {
  const h = sessionHandlers(deps);
  const router = Router();
  router.get('/csrf', h.csrf);
  router.post('/login', h.login);
  router.post('/refresh', h.refresh);
  router.post('/logout', h.logout);
  return router;
}
