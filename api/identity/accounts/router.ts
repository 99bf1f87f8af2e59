/** Account routes under /auth: POST /register (public); GET /me, PUT /update-profile, POST /change-password, DELETE /delete-account (bearer). */
import { Router, type RequestHandler } from 'express';
import { signedIn } from '../auth/bearer';
import { errors } from '../../errors/apiError';
import { consumeActionToken } from '../twoFactor/actionTokens';
import { parseOrThrow } from '../../validation/validate';
import { changePasswordBody, deleteAccountBody, registerBody, updateProfileBody } from './schema';
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

function accountHandlers(
  accounts: AccountService,
): Record<'register' | 'me' | 'updateProfile' | 'changePassword' | 'deleteAccount', RequestHandler> {
  return {
    register: async (req, res) => {
      const body = parseOrThrow(registerBody, req.body);
      res.status(201).json(await accounts.register(body));
    },
    me: async (req, res) => {
      res.json(await accounts.view(signedIn(req).user));
    },
    updateProfile: async (req, res) => {
      const body = parseOrThrow(updateProfileBody, req.body);
      res.json(await accounts.updateProfile(signedIn(req).user, body));
    },
    changePassword: async (req, res) => {
      const { user, sessionId } = signedIn(req);
      const body = parseOrThrow(changePasswordBody, req.body);
      await accounts.checkPassword(user, body.currentPassword);
      await consumeActionToken(req, user.id, 'change-password');
      await accounts.changePassword(user, sessionId, body.currentPassword, body.newPassword);
      res.json({ message: 'password changed; your other sessions were ended' });
    },
    deleteAccount: async (req, res) => {
      const { user } = signedIn(req);
      const body = parseOrThrow(deleteAccountBody, req.body ?? {});
      // The password, or a second factor: one of them proves it is really the user.
      if (body.password !== undefined) await accounts.checkPassword(user, body.password);
      else if (!(await consumeActionToken(req, user.id, 'delete-account'))) {
        throw errors.validation('request body is invalid', {
          fields: [{ field: 'password', message: 'send the password, or an x-action-token for "delete-account"' }],
        });
      }
      await accounts.delete(user);
      res.json({ message: 'account deleted' });
    },
  };
}
