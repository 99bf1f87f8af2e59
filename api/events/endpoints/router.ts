import { Router } from 'express';
import { webhookHandlers } from './handler';
import type { WebhookService } from './service';
import type { IdempotencyService } from '../../idempotency/idempotencyService';

export function webhooksRouter(service: WebhookService, idempotency: IdempotencyService): Router {
  const h = webhookHandlers(service, idempotency);
  const router = Router();
  router.post('/', h.create);
  router.get('/', h.list);
  router.get('/:id', h.read);
  router.patch('/:id', h.update);
  router.post('/:id/rotate-secret', h.rotate);
  router.delete('/:id', h.remove);
  return router;
}
