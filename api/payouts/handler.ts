import type { RequestHandler } from 'express';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import { respondIdempotently } from '../idempotency/respond';
import { parseOrThrow } from '../validation/validate';
import { errors } from '../errors/apiError';
import { MAX_REPORTED_ITEM_ERRORS } from '../../core/payouts/limits';
import { onlyDigits } from '../../core/documents';
import { batchIdParam, cancelBatchBody, createPayoutBatchBody, listBatchesQuery, listItemsQuery } from './schema';
import type { PayoutService } from './service';

/** Body errors of a batch name the item's rowIndex (`items.<rowIndex>.<field>`). */
function parseBatchBody(raw: unknown) {
  const parsed = createPayoutBatchBody.safeParse(raw);
  // The provider takes documents as digits only: '529.982.247-25' is stored and sent as '52998224725'.
  if (parsed.success) {
    return { ...parsed.data, items: parsed.data.items.map((item) => (item.recipientDocument === undefined ? item : { ...item, recipientDocument: onlyDigits(item.recipientDocument) })) };
  }
  const fields = parsed.error.issues.map((issue) => {
    const rowIndex = issue.path[0] === 'items' && typeof issue.path[1] === 'number' ? issue.path[1] : undefined;
    const field = issue.path.length ? issue.path.join('.') : ((issue as { keys?: string[] }).keys ?? []).join(',');
    return { field, ...(rowIndex !== undefined ? { rowIndex } : {}), message: issue.message };
  });
  throw errors.validation('request body is invalid', { fields: fields.slice(0, MAX_REPORTED_ITEM_ERRORS), totalInvalidFields: fields.length });
}

export function payoutHandlers(service: PayoutService, idempotency: IdempotencyService) {
  const batchId = (raw: unknown) => {
    const parsed = batchIdParam.safeParse(raw);
    if (!parsed.success) throw errors.validation('batchId must be a UUID', { fields: [{ field: 'batchId', message: 'must be a UUID' }] });
    return parsed.data;
  };

  const create: RequestHandler = async (req, res) => {
    const body = parseBatchBody(req.body);
    const items = service.validate(body);
    // Payout batches carry their key in the body, and a replay answers 200 with idempotencyReplay.
    await respondIdempotently(
      req,
      res,
      idempotency,
      { scope: 'POST /v1/payouts/batches', request: body, key: body.idempotencyKey, replayAnswer: ({ body: stored }) => ({ status: 200, body: { ...(stored as object), idempotencyReplay: true } }) },
      async (batchId, resuming) => ({ status: 201, body: await service.create(req.user!.merchant, body, items, batchId, resuming) }),
    );
  };
  const list: RequestHandler = async (req, res) => {
    res.json(await service.list(req.user!.merchantId, parseOrThrow(listBatchesQuery, req.query, 'query')));
  };
  const read: RequestHandler = async (req, res) => {
    res.json(await service.get(req.user!.merchantId, batchId(req.params.batchId)));
  };
  const items: RequestHandler = async (req, res) => {
    res.json(await service.listItems(req.user!.merchantId, batchId(req.params.batchId), parseOrThrow(listItemsQuery, req.query, 'query')));
  };
  const cancel: RequestHandler = async (req, res) => {
    const id = batchId(req.params.batchId);
    const body = parseOrThrow(cancelBatchBody, req.body);
    const merchantId = req.user!.merchantId;
    await respondIdempotently(req, res, idempotency, { scope: `POST /v1/payouts/batches/${id}/cancel`, request: body }, async () => ({
      status: 200,
      body: await service.cancel(merchantId, id, body.reason),
    }));
  };
  return { create, list, read, items, cancel };
}
