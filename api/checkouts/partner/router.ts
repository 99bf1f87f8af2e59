/**
 * /v1/checkouts (partner checkout P0). Every route: client credentials → the `checkout` scope
 * (checkout:write for POST, checkout:read for GETs; :write includes :read) → the request
 * signature (verified when sent; mandatory on POST in production) → on POST, the idempotency
 * key (requireIdempotencyKey: without one nothing else is looked at) → the handler. Errors are
 * answered in the P0 envelope by p0Errors, mounted with this router in app.ts.
 */
import { Router, type RequestHandler } from 'express';
import type { IdempotencyService } from '../../idempotency/idempotencyService';
import { requireScope } from '../../identity/auth/scopes';
import { requireIdempotencyKey } from '../../idempotency/header';
import { partnerCheckoutHandlers } from './handler';
import type { PartnerCheckoutService } from './service';
import { p0NotFound } from './envelope';

export const CHECKOUTS_PATH = '/v1/checkouts';

export interface PartnerCheckoutsRouterDeps {
  authenticate: RequestHandler;
  /** Verifies a signature when one is sent. */
  verifySignature: RequestHandler;
  /** POST's check: `requireSignature` in production, `verifySignature` elsewhere. */
  createSignature: RequestHandler;
  service: PartnerCheckoutService;
  idempotency: IdempotencyService;
}

export function partnerCheckoutsRouter(deps: PartnerCheckoutsRouterDeps): Router {
  const h = partnerCheckoutHandlers(deps.service, deps.idempotency);
  const router = Router();
  router.use(deps.authenticate, requireScope('checkout'));
  router.post('/', deps.createSignature, requireIdempotencyKey, h.create);
  router.get('/', deps.verifySignature, h.list);
  router.get('/:id', deps.verifySignature, h.read);
  router.use(p0NotFound);
  return router;
}
