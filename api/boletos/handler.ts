/** HTTP ↔ BoletoService (router.ts). */
import type { RequestHandler } from 'express';
import { signedIn } from '../identity/auth/bearer';
import { CHARGE_WRITERS } from '../charges/service';
import { requireRole } from '../dashboard/roles';
import { errors } from '../errors/apiError';
import { readIdempotencyKey } from '../idempotency/header';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import { respondIdempotently } from '../idempotency/respond';
import { parseOrThrow } from '../validation/validate';
import { batchItemsQuery, consultQuery, createBoletosBody, idParam, listBoletosQuery } from './schema';
import type { BoletoService } from './service';

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

const uuidParam = (raw: unknown, name: string) => {
  const parsed = idParam.safeParse(raw);
  if (!parsed.success)
    throw errors.validation(`${name} must be a UUID`, { fields: [{ field: name, message: 'must be a UUID' }] });
  return parsed.data;
};

export function boletoHandlers(
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
      const key = readIdempotencyKey(req)!; // present: requireIdempotencyKey (router.ts)
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
