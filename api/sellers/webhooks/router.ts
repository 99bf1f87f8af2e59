import { Router } from 'express';
import { webhookHandlers } from './handler';
import type { WebhookService } from './service';

export function webhooksRouter(service: WebhookService): Router {
  const h = webhookHandlers(service);
  const router = Router();
  router.post('/', h.create);
  router.get('/', h.list);
  router.get('/:id', h.read);
  router.patch('/:id', h.update);
  router.post('/:id/rotate-secret', h.rotate);
  router.delete('/:id', h.remove);
  return router;
}
