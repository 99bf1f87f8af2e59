/** /sellers/pix (seller family, client credentials; api/sellers/router.ts): POST / issues a charge, GET /{id} reads one. */
import { Router, type RequestHandler } from 'express';
import { parseOrThrow } from '../../validation/validate';
import { readIdempotencyKey } from '../../idempotency/header';
import { respondIdempotently } from '../../idempotency/respond';
import type { IdempotencyService } from '../../idempotency/idempotencyService';
import { chargeLookupId, createSellerPixBody } from './schema';
import { redactWebhookSecret, type SellerPixService } from './service';

export function sellerPixRouter(service: SellerPixService, idempotency: IdempotencyService): Router {
  const handlers = sellerPixHandlers(service, idempotency);
  const router = Router();
  router.post('/', handlers.create);
  router.get('/:id', handlers.read);
  return router;
}

function sellerPixHandlers(service: SellerPixService, idempotency: IdempotencyService) {
  const create: RequestHandler = async (req, res) => {
    const body = parseOrThrow(createSellerPixBody, req.body);
    const key = readIdempotencyKey(req) ?? null;
    await respondIdempotently(
      req,
      res,
      idempotency,
      { scope: 'POST /sellers/pix', request: body, storedBody: redactWebhookSecret },
      async (chargeId, resuming) => ({
        status: 201,
        body: await service.create(req.user!.merchant, body, chargeId, resuming, key),
      }),
    );
  };

  const read: RequestHandler = async (req, res) => {
    const id = parseOrThrow(chargeLookupId, req.params.id, 'charge id');
    res.json(await service.findForMerchant(req.user!.merchantId, id));
  };

  return { create, read };
}
