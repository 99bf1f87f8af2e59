/** /v1/payouts/batches: client credentials + a required request signature on every route. */
import { Router, type RequestHandler } from 'express';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import { payoutHandlers } from './handler';
import type { PayoutService } from './service';

export function payoutsRouter(deps: { authenticate: RequestHandler; requireSignature: RequestHandler; service: PayoutService; idempotency: IdempotencyService }): Router {
  const h = payoutHandlers(deps.service, deps.idempotency);
  const router = Router();
  router.use(deps.authenticate, deps.requireSignature);
  router.post('/', h.create);
  router.get('/', h.list);
  router.get('/:batchId', h.read);
  router.get('/:batchId/items', h.items);
  router.post('/:batchId/cancel', h.cancel);
  return router;
}
