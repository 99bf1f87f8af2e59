/** /charges (application API, bearer): POST / and GET / , GET /{id}, POST /{id}/cancel (the refund route is api/refunds/router.ts), GET /{id}/boleto/pdf, GET /{id}/receipt. */
import { Router, type RequestHandler } from 'express';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import { requireIdempotencyKey } from '../idempotency/header';
import { chargeHandlers } from './handler';
import type { AppChargeService } from './service';
import type { ReceiptService } from '../receipts/downloads/service';

export function chargesRouter(deps: {
  service: AppChargeService;
  receipts: ReceiptService;
  idempotency: IdempotencyService;
  requireUser: RequestHandler;
}): Router {
  const h = chargeHandlers(deps.service, deps.idempotency, deps.receipts);
  const router = Router();
  router.use(deps.requireUser);
  // Creating needs a key, checked before anything else of the request.
  router.post('/', requireIdempotencyKey, h.create);
  router.get('/', h.list);
  router.get('/:id', h.read);
  router.post('/:id/cancel', h.cancel);
  router.get('/:id/boleto/pdf', h.boletoPdf);
  router.get('/:id/receipt', h.receipt);
  return router;
}
