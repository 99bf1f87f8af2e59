/**
 * /boletos (application API, bearer): GET /consult, POST / and GET /, GET /{id},
 * GET /batches/{batchId}, DELETE /batches/{batchId}/{id}. A batch body (up to 1,000 items) is
 * parsed here, after authentication, with a larger limit than the app-wide one.
 */
import { Router, type RequestHandler } from 'express';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import { requireIdempotencyKey } from '../idempotency/header';
import { routeJsonBody } from '../middleware/jsonBody';
import { boletoHandlers } from './handler';
import type { BoletoService } from './service';

export const BOLETOS_PATH = '/boletos';

export function boletosRouter(deps: {
  service: BoletoService;
  idempotency: IdempotencyService;
  requireUser: RequestHandler;
}): Router {
  const h = boletoHandlers(deps.service, deps.idempotency);
  const router = Router();
  router.use(deps.requireUser);
  router.use(routeJsonBody({ largeLimit: '1mb', isLarge: (req) => req.method === 'POST' && req.path === '/' }));
  router.get('/consult', h.consult);
  router.post('/', requireIdempotencyKey, h.create);
  router.get('/', h.list);
  router.get('/batches/:batchId', h.batch);
  router.delete('/batches/:batchId/:id', h.cancelItem);
  router.get('/:id', h.read);
  return router;
}
