/**
 * /v1/receipts (partner, CC+SIG): the PDF receipt of a transaction (charge), a withdrawal or a
 * payout item of the authenticated merchant. Every route, in this order: client credentials →
 * the read scope of the family the document belongs to (charges:read, withdrawals:read,
 * payouts:read) → the request signature over the path exactly as sent → the id.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import { requireScope, type ScopeFamily } from '../../identity/auth/scopes';
import type { ReceiptService } from './service';
import { parseOrThrow } from '../../validation/validate';
import { errors } from '../../errors/apiError';
import { withdrawalId } from '../../withdrawals/schema';
import { payoutItemReceiptId, transactionReceiptId } from './schema';

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

/**
 * Exactly the spec's three headers (no ETag: the bytes are private and never cached), the
 * filename unquoted as the spec writes it: only ids of token characters reach it.
 */
export function sendReceiptPdf(res: Response, filename: string, pdf: Buffer): void {
  res.status(200);
  res.setHeader('Content-Type', 'application/pdf');
  res.setHeader('Content-Disposition', `inline; filename=${filename}`);
  res.setHeader('Cache-Control', 'private, no-store');
  res.setHeader('Content-Length', String(pdf.byteLength));
  res.end(pdf);
}

/** The authenticated merchant (the router authenticates first). */
function merchantOf(req: Request): string {
  if (!req.user) throw errors.invalidCredentials();
  return req.user.merchantId;
}

/** Each route: the path id checked, then the PDF with the spec's headers. */
function receiptHandlers(service: ReceiptService): Record<'transaction' | 'withdrawal' | 'payoutItem', RequestHandler> {
  return {
    transaction: async (req, res) => {
      const id = parseOrThrow(transactionReceiptId, req.params.id, 'transaction id');
      sendReceiptPdf(res, `comprovante-transacao-${id}.pdf`, await service.transaction(merchantOf(req), id));
    },
    withdrawal: async (req, res) => {
      // The ids GET /sellers/saques/{id} takes. Only a UUID names a withdrawal (any other id is
      // 404 before a PDF is made), so the unquoted filename below is always a token.
      const id = parseOrThrow(withdrawalId, req.params.id, 'withdrawal id');
      sendReceiptPdf(res, `comprovante-saque-${id}.pdf`, await service.withdrawal(merchantOf(req), id));
    },
    payoutItem: async (req, res) => {
      const id = parseOrThrow(payoutItemReceiptId, req.params.id, 'payout item id');
      sendReceiptPdf(res, `comprovante-pagamento-${id}.pdf`, await service.payoutItem(merchantOf(req), id));
    },
  };
}
