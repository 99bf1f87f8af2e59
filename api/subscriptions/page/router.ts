/**
 * The hosted subscription page, public (whoever has the URL is the payer), mounted by app.ts
 * beside the checkout page, before any authentication or JSON-body middleware:
 *   GET /subscribe/assets/subscribe.js   its one script (cached)
 *   GET /subscribe/:id                   the page; a 404 page for an unknown or malformed id
 *   GET /subscribe/:id/qr.png            the QR of qrCopyPaste, while AWAITING_AUTHORISATION only
 *   GET /subscribe/:id/status            {status, updatedAt} (the page's polling)
 * It shows nothing the payer did not give or is not asked to authorise: no merchant ids, the
 * payer's document not at all.
 */
import crypto from 'node:crypto';
import { Router, type Response } from 'express';
import type { Sequelize } from 'sequelize';
import { z } from 'zod';
import { qrCodePngBase64 } from '../../../core/pix/qrPng';
import { subscriptionQueries } from '../../../db/subscriptions';
import { ApiError } from '../../errors/apiError';
import { SUBSCRIBE_JS } from './assets';
import { renderNotFound, renderSubscriptionPage, SUBSCRIBE_PAGE_PREFIX_PATH, type SubscriptionPageView } from './html';

export const SUBSCRIPTION_PAGE_PREFIX = SUBSCRIBE_PAGE_PREFIX_PATH;

const notFound = () => new ApiError(404, 'SUBSCRIPTION_NOT_FOUND', 'subscription not found');
const uuid = z.uuid();

/** The checkout page's headers: never cached, never indexed, no referrer, scripts only from us. */
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

async function loadPage(sequelize: Sequelize, raw: unknown): Promise<SubscriptionPageView | null> {
  const id = uuid.safeParse(raw);
  if (!id.success) return null;
  const row = await subscriptionQueries.findSubscription(sequelize, id.data);
  const extras = row ? await subscriptionQueries.pageExtrasOf(sequelize, row.id) : null;
  return row && extras ? { ...row, ...extras } : null;
}

export function subscriptionPageRouter(deps: { sequelize: Sequelize }): Router {
  const router = Router();
  router.get('/assets/subscribe.js', (_req, res) => {
    res.setHeader('cache-control', 'public, max-age=3600');
    res.setHeader('x-content-type-options', 'nosniff');
    res.type('text/javascript; charset=utf-8').send(SUBSCRIBE_JS);
  });

  router.get('/:id', async (req, res) => {
    const view = await loadPage(deps.sequelize, req.params.id);
    const nonce = crypto.randomBytes(16).toString('base64');
    pageHeaders(res, nonce);
    if (!view) return void res.status(404).type('html').send(renderNotFound(nonce));
    res.status(200).type('html').send(renderSubscriptionPage(view, nonce));
  });

  router.get('/:id/qr.png', async (req, res) => {
    const id = uuid.safeParse(req.params.id);
    const row = id.success ? await subscriptionQueries.findSubscription(deps.sequelize, id.data) : null;
    // No QR once the payer answered (or the recurrence ended): an old code must not be scanned.
    if (!row || row.status !== 'AWAITING_AUTHORISATION' || !row.qrCopyPaste) throw notFound();
    res.setHeader('cache-control', 'no-store');
    res.type('image/png').send(Buffer.from(await qrCodePngBase64(row.qrCopyPaste), 'base64'));
  });

  router.get('/:id/status', async (req, res) => {
    const id = uuid.safeParse(req.params.id);
    const row = id.success ? await subscriptionQueries.findSubscription(deps.sequelize, id.data) : null;
    if (!row) throw notFound();
    res.setHeader('cache-control', 'no-store');
    res.json({ status: row.status, updatedAt: row.updatedAt.toISOString() });
  });
  return router;
}
