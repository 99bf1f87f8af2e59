/**
 * /v1/payouts/batches. Every route, in this order: client credentials → the `payouts` scope →
 * payouts enabled for the merchant (spec: "all require CC+SIG, merchant must have payouts
 * enabled") → the body, parsed only now (up to 8 MB for a batch) → the request signature.
 */
import { Router, type RequestHandler } from 'express';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import { requireScope } from '../identity/auth/scopes';
import { payoutHandlers } from './handler';
import { payoutErrors, type PayoutService } from './service';

export interface PayoutsRouterDeps {
  authenticate: RequestHandler;
  /** JSON body parser, run after authentication (api/middleware/jsonBody.ts routeJsonBody). */
  parseBody: RequestHandler;
  requireSignature: RequestHandler;
  service: PayoutService;
  idempotency: IdempotencyService;
}

const requirePayoutsEnabled: RequestHandler = (req, _res, next) => {
  next(req.user?.merchant.payoutsEnabled ? undefined : payoutErrors.notEnabled());
};

export function payoutsRouter(deps: PayoutsRouterDeps): Router {
  const h = payoutHandlers(deps.service, deps.idempotency);
  const router = Router();
  router.use(deps.authenticate, requireScope('payouts'), requirePayoutsEnabled, deps.parseBody, deps.requireSignature);
  router.post('/', h.create);
  router.get('/', h.list);
  router.get('/:batchId', h.read);
  router.get('/:batchId/items', h.items);
  router.post('/:batchId/cancel', h.cancel);
  return router;
}
