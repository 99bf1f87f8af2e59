/** /sellers/saques (seller family, client credentials; api/sellers/router.ts): a merchant's withdrawals to its Pix key. */
import { Router, type RequestHandler } from 'express';
import { errors } from '../errors/apiError';
import { readIdempotencyKey } from '../idempotency/header';
import { respondIdempotently } from '../idempotency/respond';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import { parseOrThrow } from '../validation/validate';
import { createWithdrawalBody, listWithdrawalsQuery, withdrawalId } from './schema';
import type { WithdrawalService } from './service';

export function withdrawalsRouter(service: WithdrawalService, idempotency: IdempotencyService): Router {
  const handlers = withdrawalHandlers(service, idempotency);
  const router = Router();
  router.post('/', handlers.create);
  router.get('/', handlers.list);
  router.get('/:id', handlers.read);
  return router;
}

function withdrawalHandlers(service: WithdrawalService, idempotency: IdempotencyService) {
  const create: RequestHandler = async (req, res) => {
    const body = parseOrThrow(createWithdrawalBody, req.body);
    const key = readIdempotencyKey(req) ?? null;
    await respondIdempotently(
      req,
      res,
      idempotency,
      { scope: 'POST /sellers/saques', request: body },
      async (withdrawalId, resuming) => ({
        status: 201,
        body: await service.create(req.user!.merchant, body, withdrawalId, resuming, key),
      }),
    );
  };

  const list: RequestHandler = async (req, res) => {
    const query = parseOrThrow(listWithdrawalsQuery, req.query, 'query string');
    res.json(await service.list(req.user!.merchantId, query));
  };

  const read: RequestHandler = async (req, res) => {
    const parsed = withdrawalId.safeParse(req.params.id);
    if (!parsed.success) throw errors.invalidWithdrawalId();
    res.json(await service.findForMerchant(req.user!.merchantId, parsed.data));
  };

  return { create, list, read };
}
