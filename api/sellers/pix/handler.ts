import type { RequestHandler } from 'express';
import { parseOrThrow } from '../../validation/validate';
import { readIdempotencyKey } from '../../idempotency/header';
import { chargeLookupId, createSellerPixBody } from './schema';
import type { SellerPixService } from './service';

export function sellerPixHandlers(service: SellerPixService) {
  const create: RequestHandler = async (req, res) => {
    const body = parseOrThrow(createSellerPixBody, req.body);
    const result = await service.create(req.user!.merchant, body, readIdempotencyKey(req));
    if (result.replay) res.setHeader('idempotent-replayed', 'true');
    res.status(result.status).json(result.body);
  };

  const read: RequestHandler = async (req, res) => {
    const id = parseOrThrow(chargeLookupId, req.params.id, 'charge id');
    res.json(await service.findForMerchant(req.user!.merchantId, id));
  };

  return { create, read };
}
