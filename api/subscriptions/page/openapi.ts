/** OpenAPI of the hosted subscription page (router.ts): public HTML, its script, QR and status. */
import { z } from 'zod';
import { SUBSCRIPTION_STATES } from '../../../core/subscriptions/states';
import { errorResponses, jsonResponse, registry, security } from '../../openapi/registry';

const tags = ['Hosted subscription page'];
const params = z.object({ id: z.string().meta({ description: 'The subscription’s UUID.' }) });
const html = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });

registry.registerPath({
  method: 'get',
  path: '/subscribe/{id}',
  operationId: 'subscriptionPage',
  tags,
  summary: 'The hosted subscription page (HTML, Portuguese)',
  description:
    'Public: whoever has the URL is the payer. The course, the amount per period and the terms (valor, periodicidade, primeiro vencimento, ' +
    'política de retentativas, como cancelar); while AWAITING_AUTHORISATION, the QR and the copy-and-paste code (journeys 2 and 3) or where ' +
    'to authorise (journey 1); afterwards, the state in words. The headers of the checkout page (no-store, noindex, no-referrer, a CSP without inline scripts).',
  security: security.none,
  request: { params },
  responses: {
    200: html('The page.'),
    404: html('"Assinatura não encontrada": unknown or malformed id.'),
    ...errorResponses('RATE_LIMITED'),
  },
});

registry.registerPath({
  method: 'get',
  path: '/subscribe/{id}/qr.png',
  operationId: 'subscriptionPageQr',
  tags,
  summary: 'The Pix Automático QR of a subscription awaiting authorisation (PNG)',
  description:
    'Drawn from `qrCopyPaste`. Public. Not AWAITING_AUTHORISATION any more, no QR (journey 1), or unknown → 404 SUBSCRIPTION_NOT_FOUND.',
  security: security.none,
  request: { params },
  responses: {
    200: { description: 'A PNG.', content: { 'image/png': { schema: z.string() } } },
    ...errorResponses('SUBSCRIPTION_NOT_FOUND', 'RATE_LIMITED'),
  },
});

registry.registerPath({
  method: 'get',
  path: '/subscribe/{id}/status',
  operationId: 'subscriptionPageStatus',
  tags,
  summary: 'The subscription’s state, for the page’s polling',
  description: 'What the page polls while the payer authorises. Public; unknown → 404 SUBSCRIPTION_NOT_FOUND.',
  security: security.none,
  request: { params },
  responses: {
    200: jsonResponse('The state.', z.object({ status: z.enum(SUBSCRIPTION_STATES), updatedAt: z.iso.datetime() })),
    ...errorResponses('SUBSCRIPTION_NOT_FOUND', 'RATE_LIMITED'),
  },
});

registry.registerPath({
  method: 'get',
  path: '/subscribe/assets/subscribe.js',
  operationId: 'subscriptionPageScript',
  tags,
  summary: 'The subscription page’s script (cached one hour)',
  description: 'A static asset of the hosted subscription page (copy button, status polling). Public.',
  security: security.none,
  responses: {
    200: { description: 'subscribe.js', content: { 'text/javascript': { schema: z.string() } } },
    ...errorResponses('RATE_LIMITED'),
  },
});
