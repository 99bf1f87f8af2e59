/**
 * /v1/payouts/batches. Every route, in this order: client credentials → the `payouts` scope →
 * payouts enabled for the merchant (spec: "all require CC+SIG, merchant must have payouts
 * enabled") → the body, parsed only now (up to 8 MB for a batch) → the request signature.
 */
import type { AccountModelDefault } from '../../core/provider';
import { Router, type RequestHandler } from 'express';
import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import { requireScope } from '../identity/auth/scopes';
import { routeJsonBody } from '../middleware/jsonBody';
import { defaultPayoutSettings, payoutErrors, PayoutService, type PayoutSettings } from './service';
import { respondIdempotently } from '../idempotency/respond';
import { parseOrThrow } from '../validation/validate';
import { errors } from '../errors/apiError';
import { parseBatchBody } from './batchBody';
import { batchIdParam, cancelBatchBody, listBatchesQuery, listItemsQuery } from './schema';

/** The app-wide JSON parser leaves this prefix to the router (api/app.ts). */
export const PAYOUTS_PATH = '/v1/payouts/batches';

export interface PayoutsApiDeps {
  sequelize: Sequelize;
  temporal: Client;
  taskQueue: string;
  /** Chunking and concurrency of payout batches; default defaultPayoutSettings. */
  settings?: PayoutSettings;
  accountModelDefault?: AccountModelDefault;
  /** Client credentials (any scope: this router checks `payouts`). */
  authenticate: RequestHandler;
  requireSignature: RequestHandler;
  idempotency: IdempotencyService;
}

const requirePayoutsEnabled: RequestHandler = (req, _res, next) => {
  next(req.user?.merchant.payoutsEnabled ? undefined : payoutErrors.notEnabled());
};

export function payoutsApi(deps: PayoutsApiDeps): Router {
  const service = new PayoutService({
    sequelize: deps.sequelize,
    temporal: deps.temporal,
    taskQueue: deps.taskQueue,
    settings: deps.settings ?? defaultPayoutSettings,
    accountModelDefault: deps.accountModelDefault,
  });
  const parseBody = routeJsonBody({ largeLimit: '8mb', isLarge: (req) => req.method === 'POST' && req.path === '/' });
  const h = payoutHandlers(service, deps.idempotency);
  const router = Router();
  router.use(deps.authenticate, requireScope('payouts'), requirePayoutsEnabled, parseBody, deps.requireSignature);
  router.post('/', h.create);
  router.get('/', h.list);
  router.get('/:batchId', h.read);
  router.get('/:batchId/items', h.items);
  router.post('/:batchId/cancel', h.cancel);
  return router;
}

function payoutHandlers(service: PayoutService, idempotency: IdempotencyService) {
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
