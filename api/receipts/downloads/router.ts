/**
 * /v1/receipts (partner, CC+SIG): the PDF receipt of a transaction (charge), a withdrawal or a
 * payout item of the authenticated merchant. Every route, in this order: client credentials →
 * the read scope of the family the document belongs to (charges:read, withdrawals:read,
 * payouts:read) → the request signature over the path exactly as sent → the id.
 */
import { Router, type Request, type RequestHandler } from 'express';
import { requireScope, type ScopeFamily } from '../../identity/auth/scopes';
import { receiptHandlers } from './handler';
import type { ReceiptService } from './service';

export const RECEIPTS_PATH = '/v1/receipts';

export interface ReceiptsRouterDeps {
  authenticate: RequestHandler;
  requireSignature: RequestHandler;
  service: ReceiptService;
}

const FAMILIES = new Map<string, ScopeFamily>([
  ['transactions', 'charges'],
  ['charges', 'charges'],
  ['withdrawals', 'withdrawals'],
  ['payout-items', 'payouts'],
]);

const receiptScopeFamily = (req: Request): ScopeFamily | undefined => FAMILIES.get(req.path.split('/')[1] ?? '');

export function receiptsRouter(deps: ReceiptsRouterDeps): Router {
  const h = receiptHandlers(deps.service);
  const router = Router();
  router.use(deps.authenticate, requireScope(receiptScopeFamily), deps.requireSignature);
  router.get('/transactions/:id', h.transaction);
  router.get('/charges/:id', h.transaction); // the spec's alias
  router.get('/withdrawals/:id', h.withdrawal);
  router.get('/payout-items/:id', h.payoutItem);
  return router;
}
