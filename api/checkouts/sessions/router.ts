/** /checkout/sessions (application API, bearer): POST /, GET /{id}, GET /{id}/status. */
import { Router, type RequestHandler } from 'express';
import type { IdempotencyService } from '../../idempotency/idempotencyService';
import { respondIdempotently } from '../../idempotency/respond';
import { readIdempotencyKey, requireIdempotencyKey } from '../../idempotency/header';
import { signedIn } from '../../identity/auth/bearer';
import { requireRole } from '../../identity/auth/roles';
import { parseOrThrow } from '../../validation/validate';
import { CHARGE_WRITERS } from '../../charges/service';
import { createSessionBody, sessionIdParam } from './schema';
import type { CheckoutSessionService } from './service';

export const CHECKOUT_SESSIONS_PATH = '/checkout/sessions';

export function checkoutSessionsRouter(deps: {
  service: CheckoutSessionService;
  idempotency: IdempotencyService;
  requireUser: RequestHandler;
}): Router {
  const { service, idempotency } = deps;
  const router = Router();
  router.use(deps.requireUser);
  router.post('/', requireIdempotencyKey, async (req, res) => {
    const { user } = signedIn(req);
    const body = parseOrThrow(createSessionBody, req.body);
    service.checkUrls(body);
    const key = readIdempotencyKey(req)!; // present: requireIdempotencyKey
    // The role first (as POST /charges): a key is never claimed for a merchant the caller may not charge for.
    await requireRole(user.id, body.merchantId, CHARGE_WRITERS);
    await respondIdempotently(
      req,
      res,
      idempotency,
      { scope: 'POST /checkout/sessions', merchantId: body.merchantId, request: body },
      async (sessionId, resuming) => ({
        status: 201,
        body: await service.create(body, sessionId, resuming, key),
      }),
    );
  });
  router.get('/:id', async (req, res) => {
    res.json(
      await service.read(signedIn(req).user.id, parseOrThrow(sessionIdParam, req.params.id, 'checkout session id')),
    );
  });
  router.get('/:id/status', async (req, res) => {
    res.json(
      await service.status(signedIn(req).user.id, parseOrThrow(sessionIdParam, req.params.id, 'checkout session id')),
    );
  });
  return router;
}
