/**
 * /boletos (application API, bearer): GET /consult, POST / and GET /, GET /{id},
 * GET /batches/{batchId}, DELETE /batches/{batchId}/{id}. A batch body (up to 1,000 items) is
 * parsed here, after authentication, with a larger limit than the app-wide one.
 */
import { Router, type RequestHandler } from 'express';
import { signedIn } from '../identity/auth/bearer';
import { requireRole } from '../identity/auth/roles';
import { CHARGE_WRITERS } from '../charges/service';
import { errors } from '../errors/apiError';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import { readIdempotencyKey, requireIdempotencyKey } from '../idempotency/header';
import { respondIdempotently } from '../idempotency/respond';
import { routeJsonBody } from '../middleware/jsonBody';
import { parseOrThrow } from '../validation/validate';
import { batchItemsQuery, consultQuery, createBoletosBody, idParam, listBoletosQuery } from './schema';
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

function boletoHandlers(
  service: BoletoService,
  idempotency: IdempotencyService,
): Record<'consult' | 'create' | 'list' | 'read' | 'batch' | 'cancelItem', RequestHandler> {
  return {
    consult: async (req, res) => {
      const query = parseOrThrow(consultQuery, req.query, 'query');
      res.json(service.consult(query.code));
    },
    create: async (req, res) => {
      const { user } = signedIn(req);
      const body = parseCreateBody(req.body);
      const key = readIdempotencyKey(req)!; // present: requireIdempotencyKey (above)
      // The role first: a key is never claimed for a merchant the caller may not charge for.
      await requireRole(user.id, body.merchantId, CHARGE_WRITERS);
      service.validate(body);
      await respondIdempotently(
        req,
        res,
        idempotency,
        { scope: 'POST /boletos', merchantId: body.merchantId, request: body },
        (resourceId, resuming) => service.create(body, resourceId, resuming, key),
      );
    },
    list: async (req, res) => {
      const query = parseOrThrow(listBoletosQuery, req.query, 'query');
      res.json(await service.list(signedIn(req).user.id, query));
    },
    read: async (req, res) => {
      res.json(await service.read(signedIn(req).user.id, uuidParam(req.params.id, 'id')));
    },
    batch: async (req, res) => {
      const batchId = uuidParam(req.params.batchId, 'batchId');
      const page = parseOrThrow(batchItemsQuery, req.query, 'query');
      res.json(await service.batch(signedIn(req).user.id, batchId, page));
    },
    cancelItem: async (req, res) => {
      const batchId = uuidParam(req.params.batchId, 'batchId');
      const id = uuidParam(req.params.id, 'id');
      res.json(await service.cancelItem(signedIn(req).user.id, batchId, id));
    },
  };
}

/** Body errors name the item (`items.<rowIndex>.<field>`), at most 100 of them. */
function parseCreateBody(raw: unknown) {
  const parsed = createBoletosBody.safeParse(raw);
  if (parsed.success) return parsed.data;
  const fields = parsed.error.issues.map((issue) => {
    const rowIndex = issue.path[0] === 'items' && typeof issue.path[1] === 'number' ? issue.path[1] : undefined;
    const field = issue.path.length ? issue.path.join('.') : ((issue as { keys?: string[] }).keys ?? []).join(',');
    return { field, ...(rowIndex !== undefined ? { rowIndex } : {}), message: issue.message };
  });
  throw errors.validation('request body is invalid', {
    fields: fields.slice(0, 100),
    totalInvalidFields: fields.length,
  });
}

function uuidParam(raw: unknown, name: string) {
  const parsed = idParam.safeParse(raw);
  if (!parsed.success)
    throw errors.validation(`${name} must be a UUID`, { fields: [{ field: name, message: 'must be a UUID' }] });
  return parsed.data;
}
