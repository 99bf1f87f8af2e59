import { Router } from 'express';
import { withdrawalHandlers } from './handler';
import type { WithdrawalService } from './service';
// Documents these routes in the OpenAPI registry. Imported here because api/openapi/document.ts
// (which lists the route modules) belongs to the API-docs owner; moving the import there is fine.
import './openapi';

export function withdrawalsRouter(service: WithdrawalService): Router {
  const handlers = withdrawalHandlers(service);
  const router = Router();
  router.post('/', handlers.create);
  router.get('/', handlers.list);
  router.get('/:id', handlers.read);
  return router;
}
