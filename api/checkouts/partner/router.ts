/**
 * /v1/checkouts (partner checkout P0). Every route: client credentials → the `checkout` scope
 * (checkout:write for POST, checkout:read for GETs; :write includes :read) → the request
 * signature (verified when sent; mandatory on POST in production) → on POST, the idempotency
 * key (requireIdempotencyKey: without one nothing else is looked at) → the handler. Errors are
 * answered in the P0 envelope by p0Errors, mounted with this router in app.ts.
 */
import { Router, type RequestHandler } from 'express';
import type { IdempotencyService } from '../../idempotency/idempotencyService';
import { requireScope } from '../../identity/auth/scopes';
import { readIdempotencyKey, requireIdempotencyKey } from '../../idempotency/header';
import type { PartnerCheckoutService } from './service';
import { ok, p0NotFound } from './envelope';
import { respondIdempotently } from '../../idempotency/respond';
import { parseOrThrow } from '../../validation/validate';
import { checkoutIdParam, createCheckoutBody, listCheckoutsQuery } from './schema';

export const CHECKOUTS_PATH = '/v1/checkouts';

export interface PartnerCheckoutsRouterDeps {
  authenticate: RequestHandler;
  /** Verifies a signature when one is sent. */
  verifySignature: RequestHandler;
  /** POST's check: `requireSignature` in production, `verifySignature` elsewhere. */
  createSignature: RequestHandler;
  service: PartnerCheckoutService;
  idempotency: IdempotencyService;
}

export function partnerCheckoutsRouter(deps: PartnerCheckoutsRouterDeps): Router {
  const h = partnerCheckoutHandlers(deps.service, deps.idempotency);
  const router = Router();
  router.use(deps.authenticate, requireScope('checkout'));
  router.post('/', deps.createSignature, requireIdempotencyKey, h.create);
  router.get('/', deps.verifySignature, h.list);
  router.get('/:id', deps.verifySignature, h.read);
  router.use(p0NotFound);
  return router;
}

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
