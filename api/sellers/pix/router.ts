import { Router } from 'express';
import { sellerPixHandlers } from './handler';
import type { SellerPixService } from './service';

export function sellerPixRouter(service: SellerPixService): Router {
  const handlers = sellerPixHandlers(service);
  const router = Router();
  router.post('/', handlers.create);
  router.get('/:id', handlers.read);
  return router;
}
