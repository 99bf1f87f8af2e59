import type { RequestHandler } from 'express';
import type { IdempotencyService } from '../../idempotency/idempotencyService';
import { respondIdempotently } from '../../idempotency/respond';
import { readIdempotencyKey } from '../../idempotency/header';
import { parseOrThrow } from '../../validation/validate';
import { ok } from './envelope';
import { checkoutIdParam, createCheckoutBody, listCheckoutsQuery } from './schema';
import type { PartnerCheckoutService } from './service';

export function partnerCheckoutHandlers(
  service: PartnerCheckoutService,
  idempotency: IdempotencyService,
): Record<'create' | 'read' | 'list', RequestHandler> {
  return {
    create: async (req, res) => {
      // Present: requireIdempotencyKey (router.ts) refused the request otherwise.
      const key = readIdempotencyKey(req)!;
      const body = parseOrThrow(createCheckoutBody, req.body);
      service.checkP0Rules(body);
      const merchant = req.user!.merchant;
      await respondIdempotently(
        req,
        res,
        idempotency,
        { scope: 'POST /v1/checkouts', request: body, key },
        async (checkoutId, resuming) => ({
          status: 201,
          body: ok(await service.create(merchant, body, checkoutId, resuming, key)),
        }),
      );
    },
    read: async (req, res) => {
      const id = parseOrThrow(checkoutIdParam, req.params.id, 'checkout id');
      res.json(ok(await service.read(req.user!.merchantId, id)));
    },
    list: async (req, res) => {
      const query = parseOrThrow(listCheckoutsQuery, req.query, 'query');
      const page = await service.list(req.user!.merchantId, query);
      res.json({ ...ok(page.data), pagination: { hasMore: page.hasMore, next: page.next, before: page.before } });
    },
  };
}
