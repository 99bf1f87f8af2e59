import { Router } from 'express';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import { withdrawalHandlers } from './handler';
import type { WithdrawalService } from './service';
// Documents these routes in the OpenAPI registry. Imported here because api/openapi/document.ts
// (which lists the route modules) belongs to the API-docs owner; moving the import there is fine.
import './openapi';

export function withdrawalsRouter(service: WithdrawalService, idempotency: IdempotencyService): Router {
  const handlers = withdrawalHandlers(service, idempotency);
  const router = Router();
  router.post('/', handlers.create);
  router.get('/', handlers.list);
  router.get('/:id', handlers.read);
  return router;
}
