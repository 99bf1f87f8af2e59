/**
 * GET /receipts/verify?code=… — public (no authentication; the app-wide per-IP rate limit applies):
 * is this receipt genuine, and what does it say? router → handler (handler.ts) → service (service.ts).
 * Mounted in api/app.ts before the authenticated routers.
 */
import { Router } from 'express';
import type { LoadReceiptFacts } from './facts';
import { receiptVerifyHandler } from './handler';
import { ReceiptVerifyService } from './service';

export const RECEIPT_VERIFY_PATH = '/receipts/verify';

export function receiptVerifyRouter(deps: { key: Buffer; loadFacts: LoadReceiptFacts }): Router {
  const router = Router();
  router.get(RECEIPT_VERIFY_PATH, receiptVerifyHandler(new ReceiptVerifyService(deps)));
  return router;
}
