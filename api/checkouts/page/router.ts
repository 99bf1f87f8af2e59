/**
 * The hosted checkout page, public (whoever has the URL is the buyer): mounted by app.ts outside
 * /v1 and before any authentication or JSON-body middleware.
 *   GET  /c/assets/checkout.css | checkout.js   the one stylesheet and script (cached)
 *   GET  /c/:checkoutId                          the page (UUID or bill_<uuid>); 404 page otherwise
 *   GET  /c/:checkoutId/qr.png                   the Pix QR, drawn from the charge's copy-paste code
 *   GET  /c/:checkoutId/status                   {status, completionUrl?} (polling fallback)
 *   GET  /c/:checkoutId/events                   the same as server-sent events (capped: events.ts)
 *   POST /c/:checkoutId/simulate-payment         development and tests only (404 in production)
 */
import crypto from 'node:crypto';
import { Router, type Response } from 'express';
import type { Sequelize } from 'sequelize';
import { qrCodePngBase64 } from '../../../core/pix/qrPng';
import { ApiError } from '../../errors/apiError';
import { CHECKOUT_CSS, CHECKOUT_JS } from './assets';
import { DEFAULT_STREAM_OPTIONS, statusBody, StatusStreams, type StreamOptions } from './events';
import { renderCheckoutPage, renderNotFound } from './html';
import { simulatePayment, type PaymentSimulator } from './simulate';
import { loadCheckoutPage, loadCheckoutStatus, markOpened, parseCheckoutId } from './store';

export const CHECKOUT_PAGE_PREFIX = '/c';

export interface CheckoutPageDeps {
  sequelize: Sequelize;
  /** null: no simulate button, POST …/simulate-payment answers 404 (production). */
  simulator: PaymentSimulator | null;
  /** Caps, poll interval and lifetime of the live-status streams; default DEFAULT_STREAM_OPTIONS. */
  streams?: Partial<StreamOptions>;
}

const notFound = () => new ApiError(404, 'CHECKOUT_NOT_FOUND', 'checkout not found');

/** Headers of every HTML answer: never cached, never indexed, no referrer leaks the checkout URL, scripts only from us. */
function pageHeaders(res: Response, nonce: string): void {
  res.setHeader(
    'content-security-policy',
    `default-src 'none'; script-src 'self'; style-src 'self' 'nonce-${nonce}'; img-src 'self' https:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`,
  );
  res.setHeader('cache-control', 'no-store');
  res.setHeader('x-robots-tag', 'noindex, nofollow');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('x-frame-options', 'DENY');
}

function sendNotFoundPage(res: Response): void {
  const nonce = crypto.randomBytes(16).toString('base64');
  pageHeaders(res, nonce);
  res.status(404).type('html').send(renderNotFound(nonce));
}

export function checkoutPageRouter(deps: CheckoutPageDeps): Router {
  const router = Router();
  const streams = new StatusStreams(deps.sequelize, { ...DEFAULT_STREAM_OPTIONS, ...deps.streams });

  const asset = (body: string, type: string) => (_req: unknown, res: Response) => {
    res.setHeader('cache-control', 'public, max-age=3600');
    res.setHeader('x-content-type-options', 'nosniff');
    res.type(type).send(body);
  };
  router.get('/assets/checkout.css', asset(CHECKOUT_CSS, 'text/css; charset=utf-8'));
  router.get('/assets/checkout.js', asset(CHECKOUT_JS, 'text/javascript; charset=utf-8'));

  router.get('/:checkoutId', async (req, res) => {
    const id = parseCheckoutId(req.params.checkoutId);
    const view = id ? await loadCheckoutPage(deps.sequelize, id) : null;
    if (!view) return sendNotFoundPage(res);
    if (view.status === 'PENDING') await markOpened(deps.sequelize, view.id);
    const nonce = crypto.randomBytes(16).toString('base64');
    pageHeaders(res, nonce);
    res
      .status(200)
      .type('html')
      .send(renderCheckoutPage(view, { nonce, simulate: deps.simulator !== null }));
  });

  router.get('/:checkoutId/qr.png', async (req, res) => {
    const id = parseCheckoutId(req.params.checkoutId);
    const view = id ? await loadCheckoutPage(deps.sequelize, id) : null;
    // No QR once the checkout is closed: an expired code must not be scanned.
    if (!view || view.status !== 'PENDING' || !view.copyPaste) throw notFound();
    res.setHeader('cache-control', 'no-store');
    res.type('image/png').send(Buffer.from(await qrCodePngBase64(view.copyPaste), 'base64'));
  });

  router.get('/:checkoutId/status', async (req, res) => {
    const id = parseCheckoutId(req.params.checkoutId);
    const status = id ? await loadCheckoutStatus(deps.sequelize, id) : null;
    if (!status) throw notFound();
    res.setHeader('cache-control', 'no-store');
    res.json(statusBody(status));
  });

  router.get('/:checkoutId/events', async (req, res) => {
    const id = parseCheckoutId(req.params.checkoutId);
    if (!id || !(await streams.serve(id, req, res))) throw notFound();
  });

  router.post('/:checkoutId/simulate-payment', async (req, res) => {
    if (!deps.simulator)
      throw new ApiError(404, 'NOT_FOUND', `no route for ${req.method} ${req.originalUrl.split('?')[0]}`);
    const id = parseCheckoutId(req.params.checkoutId);
    const view = id ? await loadCheckoutPage(deps.sequelize, id) : null;
    if (!view) return sendNotFoundPage(res);
    if (view.status === 'PENDING') {
      const paid = await simulatePayment(deps.simulator, view.chargeId);
      // 409: the sandbox's charge is no longer payable (paid by a double click, or closed as it
      // expired): nothing to do, the page shows what the lifecycle makes of it.
      if (!paid.ok && paid.status !== 409)
        throw new ApiError(502, 'PROVIDER_ERROR', `the sandbox answered ${paid.status}`);
    }
    // Back to the page, which follows the payment (303: the browser GETs it).
    res.redirect(303, `${CHECKOUT_PAGE_PREFIX}/${view.id}`);
  });

  return router;
}
