/**
 * /subscriptions (application API, bearer) and /v1/subscriptions (partners, client credentials):
 * POST / (Idempotency-Key), GET /, GET /{id}, POST /{id}/cancel. The same service answers both;
 * the application API names the merchant (body or query) and checks the caller's role on it, the
 * partners' merchant is the credential's. Another merchant's subscription is 404 on both.
 */
import { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { merchantStore } from '../../db/identity';
import { ok, p0Errors, p0NotFound } from '../checkouts/partner/envelope';
import { CHARGE_WRITERS } from '../charges/service';
import { ApiError } from '../errors/apiError';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import { readIdempotencyKey, requireIdempotencyKey } from '../idempotency/header';
import { respondIdempotently } from '../idempotency/respond';
import { signedIn } from '../identity/auth/bearer';
import { ANY_ROLE, defaultMerchantOf, requireRole, roleErrors } from '../identity/auth/roles';
import { requireScope } from '../identity/auth/scopes';
import { parseOrThrow } from '../validation/validate';
import {
  createPartnerSubscriptionBody,
  createSubscriptionBody,
  listPartnerSubscriptionsQuery,
  listSubscriptionsQuery,
  subscriptionIdParam,
} from './schema';
import { subscriptionErrors, type SubscriptionService } from './service';

export const SUBSCRIPTIONS_PATH = '/subscriptions';
export const PARTNER_SUBSCRIPTIONS_PATH = '/v1/subscriptions';

export function subscriptionsRouter(deps: {
  service: SubscriptionService;
  idempotency: IdempotencyService;
  requireUser: RequestHandler;
}): Router {
  const { service, idempotency } = deps;
  const router = Router();
  router.use(deps.requireUser);
  router.post('/', requireIdempotencyKey, async (req, res) => {
    const { user } = signedIn(req);
    const body = parseOrThrow(createSubscriptionBody, req.body);
    service.checkUrls(body);
    const key = readIdempotencyKey(req)!; // present: requireIdempotencyKey
    const merchantId = body.merchantId ?? (await defaultMerchantOf(user.id));
    // The role first (as POST /charges): a key is never claimed for a merchant the caller may not charge for.
    await requireRole(user.id, merchantId, CHARGE_WRITERS);
    const merchant = await merchantStore.findMerchant(merchantId);
    if (!merchant || !merchant.active) throw roleErrors.merchantNotFound();
    await respondIdempotently(
      req,
      res,
      idempotency,
      { scope: 'POST /subscriptions', merchantId, request: body },
      async (subscriptionId, resuming) => ({
        status: 201,
        body: await service.create(merchant, body, subscriptionId, resuming, key),
      }),
    );
  });
  router.get('/', async (req, res) => {
    const { user } = signedIn(req);
    const query = parseOrThrow(listSubscriptionsQuery, req.query, 'query');
    const merchantId = query.merchantId ?? (await defaultMerchantOf(user.id));
    await requireRole(user.id, merchantId, ANY_ROLE);
    const page = await service.list(merchantId, query);
    res.json({ data: page.data, pagination: { hasMore: page.hasMore, next: page.next } });
  });
  router.get('/:id', async (req, res) => {
    const id = parseOrThrow(subscriptionIdParam, req.params.id, 'subscription id');
    const merchantId = await ownedBy(service, signedIn(req).user.id, id, ANY_ROLE);
    res.json(await service.read(merchantId, id));
  });
  router.post('/:id/cancel', async (req, res) => {
    const id = parseOrThrow(subscriptionIdParam, req.params.id, 'subscription id');
    const merchantId = await ownedBy(service, signedIn(req).user.id, id, CHARGE_WRITERS);
    res.json(await service.cancel(merchantId, id));
  });
  return router;
}

/** The subscription's merchant, when the caller is a member with an allowed role; not a member: 404. */
async function ownedBy(
  service: SubscriptionService,
  userId: string,
  id: string,
  allowed: Parameters<typeof requireRole>[2],
): Promise<string> {
  const merchantId = await service.merchantOf(id);
  try {
    await requireRole(userId, merchantId, allowed);
  } catch (err) {
    if ((err as ApiError).code === 'MERCHANT_NOT_FOUND') throw subscriptionErrors.notFound();
    throw err;
  }
  return merchantId;
}

export interface PartnerSubscriptionsApiDeps {
  service: SubscriptionService;
  logger: Logger;
  /** Client credentials (any scope: this router checks `checkout`). */
  authenticate: RequestHandler;
  verifySignature: RequestHandler;
  requireSignature: RequestHandler;
  idempotency: IdempotencyService;
  production: boolean;
}

/**
 * /v1/subscriptions in the /v1 contract's style (api/checkouts/partner): the `checkout` scope
 * (a subscription sells a course price, as a checkout does: checkout:write to create and cancel,
 * checkout:read to read), the request signature (mandatory on POSTs in production), every answer
 * in the P0 envelope. A malformed id → 422 INVALID_SUBSCRIPTION_ID, as /v1/checkouts answers its own.
 * Returns the router and its error handler: mount both on PARTNER_SUBSCRIPTIONS_PATH.
 */
export function partnerSubscriptionsApi(deps: PartnerSubscriptionsApiDeps): [Router, ErrorRequestHandler] {
  const { service, idempotency } = deps;
  const writeSignature = deps.production ? deps.requireSignature : deps.verifySignature;
  const router = Router();
  router.use(deps.authenticate, requireScope('checkout'));
  router.post('/', writeSignature, requireIdempotencyKey, async (req, res) => {
    const key = readIdempotencyKey(req)!; // present: requireIdempotencyKey
    const body = parseOrThrow(createPartnerSubscriptionBody, req.body);
    service.checkUrls(body);
    const merchant = req.user!.merchant;
    await respondIdempotently(
      req,
      res,
      idempotency,
      { scope: 'POST /v1/subscriptions', request: body, key },
      async (subscriptionId, resuming) => ({
        status: 201,
        body: ok(await service.create(merchant, body, subscriptionId, resuming, key)),
      }),
    );
  });
  router.get('/', deps.verifySignature, async (req, res) => {
    const query = parseOrThrow(listPartnerSubscriptionsQuery, req.query, 'query');
    const page = await service.list(req.user!.merchantId, query);
    res.json({ ...ok(page.data), pagination: { hasMore: page.hasMore, next: page.next } });
  });
  router.get('/:id', deps.verifySignature, async (req, res) => {
    res.json(ok(await service.read(req.user!.merchantId, partnerId(req.params.id))));
  });
  router.post('/:id/cancel', writeSignature, async (req, res) => {
    res.json(ok(await service.cancel(req.user!.merchantId, partnerId(req.params.id))));
  });
  router.use(p0NotFound);
  return [router, p0Errors(deps.logger)];
}

function partnerId(raw: unknown): string {
  const parsed = subscriptionIdParam.safeParse(raw);
  if (!parsed.success)
    throw new ApiError(422, 'INVALID_SUBSCRIPTION_ID', 'id must be a subscription id (a UUID)', { field: 'id' });
  return parsed.data;
}
