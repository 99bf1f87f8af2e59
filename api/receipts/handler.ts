/** GET /receipts/verify: JSON by default, the HTML page when the client prefers text/html. */
import type { RequestHandler } from 'express';
import type { ReceiptVerifyService } from './service';
import { VERIFY_PAGE_CSP, verifyPage } from './verifyPage';

export function receiptVerifyHandler(service: ReceiptVerifyService): RequestHandler {
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
