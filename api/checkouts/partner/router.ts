/**
 * /v1/checkouts (partner checkout P0). Every route: client credentials → the `checkout` scope
 * (checkout:write for POST, checkout:read for GETs; :write includes :read) → the request
 * signature (verified when sent; mandatory on POST in production) → on POST, the idempotency
 * key (requireIdempotencyKey: without one nothing else is looked at) → the handler. Errors are
 * answered in the P0 envelope by p0Errors, which partnerCheckoutsApi returns beside the router so
 * that app.ts mounts it on the path itself: errors raised before the router (rate limit, body
 * parser) answer in the P0 envelope too.
 */
import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { IdempotencyService } from '../../idempotency/idempotencyService';
import { requireScope } from '../../identity/auth/scopes';
import { readIdempotencyKey, requireIdempotencyKey } from '../../idempotency/header';
import { PartnerCheckoutService, type CheckoutIssueDeps } from './service';
import { ok, p0Errors, p0NotFound } from './envelope';
import { respondIdempotently } from '../../idempotency/respond';
import { parseOrThrow } from '../../validation/validate';
import { checkoutIdParam, createCheckoutBody, listCheckoutsQuery } from './schema';

export const CHECKOUTS_PATH = '/v1/checkouts';

export interface PartnerCheckoutsApiDeps extends CheckoutIssueDeps {
  logger: Logger;
  /** Client credentials (any scope: this router checks `checkout`). */
  authenticate: RequestHandler;
  /** Verifies a signature when one is sent. */
  verifySignature: RequestHandler;
  /** Requires a valid signature (POST's check in production). */
  requireSignature: RequestHandler;
  idempotency: IdempotencyService;
}

/** The router and, after it, the P0 error handler: mount both on CHECKOUTS_PATH. */
export function partnerCheckoutsApi(deps: PartnerCheckoutsApiDeps): [Router, ErrorRequestHandler] {
  const service = new PartnerCheckoutService({
    sequelize: deps.sequelize,
    temporal: deps.temporal,
    taskQueue: deps.taskQueue,
    defaultFee: deps.defaultFee,
    defaultChargeTtlSeconds: deps.defaultChargeTtlSeconds,
    publicBaseUrl: deps.publicBaseUrl,
    production: deps.production,
  });
  const createSignature = deps.production ? deps.requireSignature : deps.verifySignature;
  const h = partnerCheckoutHandlers(service, deps.idempotency);
  const router = Router();
  router.use(deps.authenticate, requireScope('checkout'));
  router.post('/', createSignature, requireIdempotencyKey, h.create);
  router.get('/', deps.verifySignature, h.list);
  router.get('/:id', deps.verifySignature, h.read);
  router.use(p0NotFound);
  return [router, p0Errors(deps.logger)];
}

function partnerCheckoutHandlers(
  service: PartnerCheckoutService,
  idempotency: IdempotencyService,
): Record<'create' | 'read' | 'list', RequestHandler> {
  return {
    create: async (req, res) => {
      // Present: requireIdempotencyKey (above) refused the request otherwise.
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
