/** /reconciliations (application API, bearer): start a reconciliation, list them, read one. See service.ts. */
import { Router, type RequestHandler } from 'express';
import { signedIn } from '../identity/auth/bearer';
import { parseOrThrow } from '../validation/validate';
import { createReconciliationBody, listReconciliationsQuery, reconciliationIdParam } from './schema';
import type { ReconciliationService } from './service';

export const RECONCILIATIONS_PATH = '/reconciliations';

export function reconciliationsRouter(deps: { service: ReconciliationService; requireUser: RequestHandler }): Router {
  const router = Router();
  router.use(deps.requireUser);
  router.post('/', async (req, res) => {
    const body = parseOrThrow(createReconciliationBody, req.body);
    res.status(202).json(await deps.service.create(signedIn(req).user.id, body));
  });
  router.get('/', async (req, res) => {
    const query = parseOrThrow(listReconciliationsQuery, req.query, 'query');
    res.json(await deps.service.list(signedIn(req).user.id, query));
  });
  router.get('/:id', async (req, res) => {
    const id = parseOrThrow(reconciliationIdParam, req.params.id, 'reconciliation id');
    res.json(await deps.service.read(signedIn(req).user.id, id));
  });
  return router;
}
