import { Router } from 'express';
import type { IdempotencyService } from '../../idempotency/idempotencyService';
import { sellerPixHandlers } from './handler';
import type { SellerPixService } from './service';

export function sellerPixRouter(service: SellerPixService, idempotency: IdempotencyService): Router {
  const handlers = sellerPixHandlers(service, idempotency);
  const router = Router();
  router.post('/', handlers.create);
  router.get('/:id', handlers.read);
  return router;
}
