/**
 * The seller family: every seller route, behind client credentials with a seller scope (and a
 * request signature whenever one is sent). Mounted at /sellers (canonical) and again at the legacy
 * /rifeiro prefix, which answers identically plus a Deprecation header. The family folder has no
 * service of its own: each route's is in its domain's folder (charges/sellers, events/endpoints,
 * withdrawals, events/deliveries), built here once for both prefixes.
 */
import { Router, type RequestHandler } from 'express';
import { requireScope, sellerScopeFamily } from '../identity/auth/scopes';
import type { IdempotencyService } from '../idempotency/idempotencyService';
import { sellerPixRouter } from '../charges/sellers/router';
import { SellerPixService, type SellerPixServiceDeps } from '../charges/sellers/service';
import { webhooksRouter } from '../events/endpoints/router';
import { WebhookService } from '../events/endpoints/service';
import { withdrawalsRouter } from '../withdrawals/router';
import { WithdrawalService } from '../withdrawals/service';
import { deliveriesRouter } from '../events/deliveries/router';
import { DeliveryService } from '../events/deliveries/service';

export interface SellersApiDeps extends SellerPixServiceDeps {
  /** Client credentials (any scope: this router checks the seller scope of each route). */
  authenticate: RequestHandler;
  /** Verifies x-gateway-signature when present (optional on seller routes). */
  verifySignature: RequestHandler;
  idempotency: IdempotencyService;
}

export function sellersApi(deps: SellersApiDeps): Router {
  const { sequelize, temporal, taskQueue, encryptionKey, destinations, platformInstitution } = deps;
  const sellerPix = new SellerPixService({
    sequelize,
    temporal,
    taskQueue,
    defaultFee: deps.defaultFee,
    defaultChargeTtlSeconds: deps.defaultChargeTtlSeconds,
    encryptionKey,
    destinations,
    platformInstitution,
  });
  const webhooks = new WebhookService({ encryptionKey, destinations, temporal, taskQueue });
  const withdrawals = new WithdrawalService({ sequelize, temporal, taskQueue, platformInstitution });
  const deliveries = new DeliveryService({ sequelize, temporal, taskQueue });

  const sellers = Router();
  sellers.use(deps.authenticate, requireScope(sellerScopeFamily), deps.verifySignature);
  sellers.use('/pix', sellerPixRouter(sellerPix, deps.idempotency));
  sellers.use('/webhooks', webhooksRouter(webhooks, deps.idempotency));
  sellers.use('/saques', withdrawalsRouter(withdrawals, deps.idempotency));
  sellers.use(deliveriesRouter(deliveries, deps.idempotency));

  const router = Router();
  router.use('/sellers', sellers);
  router.use('/rifeiro', legacyDeprecation, sellers);
  return router;
}

const legacyDeprecation: RequestHandler = (_req, res, next) => {
  res.setHeader('Deprecation', 'true');
  res.setHeader('Link', '</sellers>; rel="successor-version"');
  next();
};
