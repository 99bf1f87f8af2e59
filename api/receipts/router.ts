/**
 * GET /receipts/verify?code=… — public (no authentication; the app-wide per-IP rate limit applies):
 * is this receipt genuine, and what does it say? JSON by default, the HTML page (verifyPage.ts)
 * when the client prefers text/html. Mounted in api/app.ts before the authenticated routers.
 */
import { Router, type RequestHandler } from 'express';
import type { LoadReceiptFacts } from './facts';
import { ReceiptVerifyService } from './service';
import { VERIFY_PAGE_CSP, verifyPage } from './verifyPage';

export const RECEIPT_VERIFY_PATH = '/receipts/verify';

export function receiptVerifyRouter(deps: { key: Buffer; loadFacts: LoadReceiptFacts }): Router {
  const router = Router();
  router.get(RECEIPT_VERIFY_PATH, receiptVerifyHandler(new ReceiptVerifyService(deps)));
  return router;
}

function receiptVerifyHandler(service: ReceiptVerifyService): RequestHandler {
  return async (req, res) => {
    // A repeated or nested `code` is not a string: verify() answers not authentic.
    const result = await service.verify(req.query.code);
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Vary', 'Accept');
    // The code is in the URL: keep it out of Referer headers of anything the page links to.
    res.setHeader('Referrer-Policy', 'no-referrer');
    if (req.accepts(['application/json', 'text/html']) === 'text/html') {
      res.setHeader('Content-Security-Policy', VERIFY_PAGE_CSP);
      res.type('html').send(verifyPage(result));
      return;
    }
    res.json(result);
  };
}
