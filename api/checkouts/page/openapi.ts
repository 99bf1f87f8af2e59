/** OpenAPI of the hosted checkout page (router.ts): public HTML, its assets, QR and live status. */
import { z } from 'zod';
import { errorResponses, jsonResponse, registry, security } from '../../openapi/registry';

const tags = ['Hosted checkout page'];
const checkoutId = z.string().meta({
  description: 'The checkout’s UUID, or its public id `bill_<uuid>`.',
  example: 'bill_3f0c1f0e-8a55-4a8e-9f3e-2b7f1f9c6d10',
});
const params = z.object({ checkoutId });
const html = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });

export const checkoutStatusView = z.object({
  status: z
    .enum(['PENDING', 'PAID', 'EXPIRED', 'CANCELLED', 'REFUNDED'])
    .describe('PENDING past its expiry reads EXPIRED.'),
  completionUrl: z
    .string()
    .optional()
    .describe('Where the buyer goes next; only once PAID, and only when the checkout has one.'),
});

registry.registerPath({
  method: 'get',
  path: '/c/{checkoutId}',
  operationId: 'checkoutPage',
  tags,
  summary: 'The hosted checkout page (HTML, Portuguese)',
  description:
    'Public: whoever has the URL is the buyer. Merchant name, logo and colour, the items and total, the Pix QR and copy-paste code, live status; ' +
    'the paid, expired and cancelled pages. The first view of a PENDING checkout records `opened_at` (a session becomes OPENED). ' +
    '`Cache-Control: no-store`, `X-Robots-Tag: noindex`, `Referrer-Policy: no-referrer`, a CSP without inline scripts.',
  security: security.none,
  request: { params },
  responses: {
    200: html('The page.'),
    404: html('"Checkout não encontrado": unknown or malformed id.'),
    ...errorResponses('RATE_LIMITED'),
  },
});

registry.registerPath({
  method: 'get',
  path: '/c/{checkoutId}/qr.png',
  operationId: 'checkoutPageQr',
  tags,
  summary: 'The Pix QR code of a PENDING checkout (PNG)',
  description:
    'The QR the page shows, drawn from the charge’s copy-paste code. Public (anyone with the URL is the buyer). Not PENDING any more, or unknown → 404 CHECKOUT_NOT_FOUND.',
  security: security.none,
  request: { params },
  responses: {
    200: { description: 'A PNG drawn from the copy-paste code.', content: { 'image/png': { schema: z.string() } } },
    ...errorResponses('CHECKOUT_NOT_FOUND', 'RATE_LIMITED'),
  },
});

registry.registerPath({
  method: 'get',
  path: '/c/{checkoutId}/status',
  operationId: 'checkoutPageStatus',
  tags,
  summary: 'The checkout’s status for the page (polling fallback of /events)',
  description:
    'What the page polls when it cannot keep GET /c/{checkoutId}/events open: the status, and where to go once paid. Public; an unknown checkout → 404 CHECKOUT_NOT_FOUND.',
  security: security.none,
  request: { params },
  responses: {
    200: jsonResponse('The status.', checkoutStatusView),
    ...errorResponses('CHECKOUT_NOT_FOUND', 'RATE_LIMITED'),
  },
});

/** One server-sent event as a client parses it: `event: status` and `data:` the JSON of GET /c/{checkoutId}/status. */
const sseEvent = z
  .object({
    event: z.string(),
    data: z.string().describe('JSON: {status, completionUrl?}'),
    id: z.string(),
    retry: z.number().int(),
  })
  .partial()
  .openapi('CheckoutPageEvent');

registry.registerPath({
  method: 'get',
  path: '/c/{checkoutId}/events',
  operationId: 'checkoutPageEvents',
  tags,
  summary: 'The checkout’s status as server-sent events',
  description:
    'Events named `status`, data as /status; the first is the current status, then one per change. The stream ends after a final status or five minutes (EventSource reconnects). ' +
    'At most 3 streams may be open per checkout and 20 per client IP (`CHECKOUT_STREAMS_PER_CHECKOUT`, `CHECKOUT_STREAMS_PER_IP`; the IP as `TRUST_PROXY` makes it): ' +
    'beyond either, 429 `TOO_MANY_STREAMS` with `Retry-After` and `details.scope` `checkout` or `client`; poll GET /c/{checkoutId}/status instead. A stream frees its slot when it closes.',
  security: security.none,
  request: { params },
  responses: {
    200: { description: 'An event stream.', content: { 'text/event-stream': { schema: sseEvent } } },
    ...errorResponses('CHECKOUT_NOT_FOUND', 'TOO_MANY_STREAMS', 'RATE_LIMITED'),
  },
});

registry.registerPath({
  method: 'post',
  path: '/c/{checkoutId}/simulate-payment',
  operationId: 'checkoutPageSimulatePayment',
  tags,
  summary: 'Development and tests only: pay the checkout at the sandbox provider',
  description: 'The page’s "Simular pagamento" button. Answers 404 in production.',
  security: security.none,
  request: { params },
  responses: {
    303: {
      description: 'Paid (or already closed): back to the page.',
      headers: { Location: { description: 'The page.', schema: { type: 'string' } } },
    },
    404: html('"Checkout não encontrado"; in production the route answers the JSON 404 NOT_FOUND.'),
    ...errorResponses('PROVIDER_ERROR', 'RATE_LIMITED'),
  },
});

for (const [name, type] of [
  ['checkout.css', 'text/css'],
  ['checkout.js', 'text/javascript'],
] as const) {
  registry.registerPath({
    method: 'get',
    path: `/c/assets/${name}`,
    operationId: name === 'checkout.css' ? 'checkoutPageStylesheet' : 'checkoutPageScript',
    tags,
    summary: `The checkout page’s ${name === 'checkout.css' ? 'stylesheet' : 'script'} (cached one hour)`,
    description: 'A static asset of the hosted checkout page, the same for every checkout. Public.',
    security: security.none,
    responses: {
      200: { description: name, content: { [type]: { schema: z.string() } } },
      ...errorResponses('RATE_LIMITED'),
    },
  });
}
