import type { RequestHandler } from 'express';
import { errors } from '../../errors/apiError';
import { readIdempotencyKey } from '../../idempotency/header';
import { parseOrThrow } from '../../validation/validate';
import { createWithdrawalBody, listWithdrawalsQuery, withdrawalId } from './schema';
import type { WithdrawalService } from './service';

export function withdrawalHandlers(service: WithdrawalService) {
  const create: RequestHandler = async (req, res) => {
    const body = parseOrThrow(createWithdrawalBody, req.body);
    const result = await service.create(req.user!.merchant, body, readIdempotencyKey(req));
    if (result.replay) res.setHeader('idempotent-replayed', 'true');
    res.status(result.status).json(result.body);
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
