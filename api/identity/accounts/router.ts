/** Account routes under /auth: POST /register (public); GET /me, PUT /update-profile, POST /change-password, DELETE /delete-account (bearer). */
import { Router, type RequestHandler } from 'express';
import { accountHandlers } from './handler';
import type { AccountService } from './service';

export function accountsRouter(deps: { accounts: AccountService; requireUser: RequestHandler }): Router {
  const h = accountHandlers(deps.accounts);
  const router = Router();
  router.post('/register', h.register);
  router.get('/me', deps.requireUser, h.me);
  router.put('/update-profile', deps.requireUser, h.updateProfile);
  router.post('/change-password', deps.requireUser, h.changePassword);
  router.delete('/delete-account', deps.requireUser, h.deleteAccount);
  return router;
}
