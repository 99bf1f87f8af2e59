/** HTTP ↔ ReceiptService (router.ts): the path id checked, then the PDF with the spec's headers. */
import type { Request, RequestHandler, Response } from 'express';
import { parseOrThrow } from '../../validation/validate';
import { errors } from '../../errors/apiError';
import { withdrawalId } from '../../withdrawals/schema';
import { payoutItemReceiptId, transactionReceiptId } from './schema';
import type { ReceiptService } from './service';

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

export function receiptHandlers(
  service: ReceiptService,
): Record<'transaction' | 'withdrawal' | 'payoutItem', RequestHandler> {
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
