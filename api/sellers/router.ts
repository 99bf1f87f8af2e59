/**
 * Every seller route, behind client credentials (and a request signature whenever one is sent).
 * Mounted at /sellers (canonical) and again at the legacy /rifeiro prefix, which answers
 * identically plus a Deprecation header.
 */
import { Router, type RequestHandler } from 'express';
import { sellerPixRouter } from '../charges/sellers/router';
import type { SellerPixService } from '../charges/sellers/service';
import { webhooksRouter } from '../events/endpoints/router';
import type { WebhookService } from '../events/endpoints/service';
import { withdrawalsRouter } from '../withdrawals/router';
import type { WithdrawalService } from '../withdrawals/service';
import { deliveriesRouter } from '../events/deliveries/router';
import type { DeliveryService } from '../events/deliveries/service';
import type { IdempotencyService } from '../idempotency/idempotencyService';

export interface SellersRouterDeps {
  authenticate: RequestHandler;
  /** Verifies x-gateway-signature when present (optional on seller routes). */
  verifySignature: RequestHandler;
  sellerPix: SellerPixService;
  webhooks: WebhookService;
  withdrawals: WithdrawalService;
  deliveries: DeliveryService;
  idempotency: IdempotencyService;
}

export function sellersRouter(deps: SellersRouterDeps): Router {
  const router = Router();
  router.use(deps.authenticate, deps.verifySignature);
  router.use('/pix', sellerPixRouter(deps.sellerPix, deps.idempotency));
  router.use('/webhooks', webhooksRouter(deps.webhooks, deps.idempotency));
  router.use('/saques', withdrawalsRouter(deps.withdrawals, deps.idempotency));
  router.use(deliveriesRouter(deps.deliveries, deps.idempotency));
  return router;
}

export const legacyDeprecation: RequestHandler = (_req, res, next) => {
  res.setHeader('Deprecation', 'true');
  res.setHeader('Link', '</sellers>; rel="successor-version"');
  next();
};
