import type { RequestHandler } from 'express';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import { respondIdempotently } from '../idempotency/respond';
import { parseOrThrow } from '../validation/validate';
import { errors } from '../errors/apiError';
import { parseBatchBody } from './batchBody';
import { batchIdParam, cancelBatchBody, listBatchesQuery, listItemsQuery } from './schema';
import type { PayoutService } from './service';

export function payoutHandlers(service: PayoutService, idempotency: IdempotencyService) {
  const batchId = (raw: unknown) => {
    const parsed = batchIdParam.safeParse(raw);
    if (!parsed.success)
      throw errors.validation('batchId must be a UUID', { fields: [{ field: 'batchId', message: 'must be a UUID' }] });
    return parsed.data;
  };

  const create: RequestHandler = async (req, res) => {
    // Every invalid field of every item in one 400, before the idempotency claim.
    const { body, items } = parseBatchBody(req.body);
    // Payout batches carry their key in the body, and a replay answers 200 with idempotencyReplay.
    await respondIdempotently(
      req,
      res,
      idempotency,
      {
        scope: 'POST /v1/payouts/batches',
        request: body,
        key: body.idempotencyKey,
        replayAnswer: ({ body: stored }) => ({ status: 200, body: { ...(stored as object), idempotencyReplay: true } }),
      },
      async (batchId, resuming) => ({
        status: 201,
        body: await service.create(req.user!.merchant, body, items, batchId, resuming),
      }),
    );
  };
  const list: RequestHandler = async (req, res) => {
    res.json(await service.list(req.user!.merchantId, parseOrThrow(listBatchesQuery, req.query, 'query')));
  };
  const read: RequestHandler = async (req, res) => {
    res.json(await service.get(req.user!.merchantId, batchId(req.params.batchId)));
  };
  const items: RequestHandler = async (req, res) => {
    res.json(
      await service.listItems(
        req.user!.merchantId,
        batchId(req.params.batchId),
        parseOrThrow(listItemsQuery, req.query, 'query'),
      ),
    );
  };
  const cancel: RequestHandler = async (req, res) => {
    const id = batchId(req.params.batchId);
    const body = parseOrThrow(cancelBatchBody, req.body);
    const merchantId = req.user!.merchantId;
    await respondIdempotently(
      req,
      res,
      idempotency,
      { scope: `POST /v1/payouts/batches/${id}/cancel`, request: body },
      async () => ({
        status: 200,
        body: await service.cancel(merchantId, id, body.reason),
      }),
    );
  };
  return { create, list, read, items, cancel };
}
