/**
 * The OpenAPI 3.1 document of this API, generated from the shared registry. Each route module
 * documents itself in an `openapi.ts` beside it; importing it here puts it in the document.
 * A mounted route that nobody documented fails test/integration/openapi.test.ts.
 */
import { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { registry } from './registry';
import './openapi';
import '../health/openapi';
import '../metrics/openapi';
import '../charges/callbacks/openapi';
import '../charges/pixApiCallbacks/openapi';
import '../connections/notifications/openapi';
import '../charges/sellers/openapi';
import '../withdrawals/openapi';
import '../events/endpoints/openapi';
import '../events/deliveries/openapi';
import '../events/openapi';
import '../payouts/openapi';
import '../identity/accounts/openapi';
import '../identity/sessions/openapi';
import '../identity/twoFactor/openapi';
import '../identity/avatar/openapi';
import '../uploads/openapi';
import '../dashboard/openapi';
import '../dashboard/figuresOpenapi';
import '../dashboard/balanceLinesOpenapi';
import '../connections/openapi';
import '../charges/openapi';
import '../refunds/openapi';
import '../boletos/openapi';
import '../receipts/openapi';
import '../receipts/downloads/openapi';
import '../checkouts/page/openapi';
import '../checkouts/partner/openapi';
import '../checkouts/sessions/openapi';
import '../subscriptions/openapi';
import '../subscriptions/page/openapi';
import '../marketplace/courses/openapi';
import '../marketplace/enrolments/openapi';
import '../reconciliations/openapi';
import '../settlements/openapi';
import '../med/openapi';

/** The interface spec's version (shared/spec/interface-spec.md, "Versioning"), not package.json's. */
export const INTERFACE_VERSION = '2.0.0';

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

export function buildOpenApiDocument(): OpenApiDocument {
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Pix Gateway API',
      version: INTERFACE_VERSION,
      description:
        'Pix charges for merchants, split among sellers, settled into a double-entry ledger. All amounts are integer cents of BRL. ' +
        'Errors use one envelope, `{"error": {"code", "message", "details", "traceId"}}` (the partner checkout routes, /v1/checkouts, use the P0 envelope `{data: null, success: false, error}`); the trace id is also the `x-trace-id` header of every response. ' +
        'A path this document lists, called with a method it does not list, answers 405 METHOD_NOT_ALLOWED in that envelope with an `Allow` header naming the methods the path takes (HEAD wherever GET is), before any authentication; ' +
        'a path it does not list answers 404 NOT_FOUND (after authentication, under an authenticated prefix). ' +
        'Client credentials (`x-client-id`, `x-client-secret`) and bearer tokens are the security schemes; the request signature (`x-gateway-timestamp`, `x-gateway-signature`) is a pair of header parameters, required on payouts and receipts and verified when sent elsewhere.',
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'Seller Pix charges', description: 'Server-to-server, with client credentials.' },
      {
        name: 'Seller withdrawals',
        description: "Saques: Pix transfers of the merchant's available balance to its registered Pix key.",
      },
      {
        name: 'Seller webhooks',
        description:
          'Where charge and withdrawal events are delivered, signed with the webhook secret (`gateway-signature`).',
      },
      {
        name: 'Payout batches',
        description:
          'Pix transfers to many recipients; client credentials and a request signature on every download; their public verification.',
      },
      {
        name: 'Receipts',
        description:
          'PDF receipts (comprovantes) of paid charges, completed withdrawals and paid payout items; client credentials and a request signature on every download; their public verification.',
      },
      {
        name: 'Hosted checkout page',
        description: 'The public page a buyer pays a checkout on (HTML), its QR code and live status.',
      },
      {
        name: 'Webhook events',
        description: 'What the gateway POSTs to your webhooks, signed with `gateway-signature`.',
      },
      { name: 'Account', description: "Application API: a signed-in person's own account (bearer access token)." },
      { name: 'Sessions', description: 'Application API: login, refresh (cookie + CSRF), logout.' },
      {
        name: 'Two-factor authentication',
        description: 'TOTP, e-mail codes, recovery codes; the login second step; action tokens for sensitive actions.',
      },
      {
        name: 'Charges',
        description:
          'Application API: Pix charges of your merchants (the same lifecycle, ledger and webhooks as the seller routes).',
      },
      {
        name: 'Courses',
        description:
          'Application API: the marketplace catalogue of your merchants: courses (DRAFT → PUBLISHED → ARCHIVED), their prices, modules and lessons. Only PUBLISHED courses sell.',
      },
      {
        name: 'Enrolments',
        description:
          'Application API: enrolments created when a checkout selling a course is paid (revoked on a full refund), lesson progress reported by the producer’s platform, and certificates (PDF, verified at GET /receipts/verify).',
      },
      {
        name: 'Reconciliations',
        description:
          'Application API: the provider’s statement compared with the ledger for a date range (matched, missing in the ledger, missing at the provider, amount mismatch); lost payments are healed through the normal settlement path.',
      },
      {
        name: 'Settlements',
        description:
          'Application API: move a merchant’s available balance to its own registered Pix key, on demand or on a per-merchant Temporal Schedule (D0, D1, WEEKLY). The money moves as a withdrawal (the same transfer path). Bank-account (TED) destinations are not offered.',
      },
      { name: 'Avatars', description: 'Application API: upload a profile picture (presign → PUT → confirm).' },
      { name: 'Uploads', description: 'The local upload store (when no S3 is configured): signed PUT URLs and reads.' },
      { name: 'Legacy /rifeiro', description: 'Deprecated aliases of the /sellers routes, identical in behaviour.' },
      { name: 'Provider callbacks', description: 'Called by the Pix provider, signed with its callback secret.' },
      {
        name: 'Dashboard',
        description:
          'Application API for signed-in people (`Authorization: Bearer <access token>`): the merchant and its API credentials.',
      },
      {
        name: 'PSP connection',
        description:
          'Application API: the merchant’s own PSP account (the connected account model): register it with its credentials and certificate (sealed at once, never returned), test it, register its webhook, revoke it.',
      },
      {
        name: 'Partner checkouts P0',
        description:
          'Client credentials with scopes checkout:read / checkout:write; every answer in the P0 envelope {data, success, error}.',
      },
      {
        name: 'Subscriptions',
        description:
          'Application API: subscriptions to a course’s SUBSCRIPTION price, paid by Pix Automático (docs/api/subscriptions.md).',
      },
      {
        name: 'Partner subscriptions',
        description:
          'Client credentials with scopes checkout:read / checkout:write; every answer in the P0 envelope {data, success, error}.',
      },
      {
        name: 'Hosted subscription page',
        description: 'Public: the page where the payer reads the terms and authorises (QR, copy and paste).',
      },
      {
        name: 'Checkout sessions',
        description:
          'Application API: hosted checkout pages for an amount (the same page and lifecycle as P0 checkouts).',
      },
      {
        name: 'Boletos',
        description:
          'Application API: boleto charges (hybrid, with a Pix QR too) of your merchants, one at a time or in batches; decoding a digitable line or barcode.',
      },
      {
        name: 'Pix infractions (MED)',
        description:
          'Application API: disputes of received Pix payments (Mecanismo Especial de Devolução): the disputed amount is blocked on open; ACCEPT returns it to the payer, REJECT releases it; unanswered by the deadline, ACCEPT is applied.',
      },
      {
        name: 'Health',
        description: 'Liveness, readiness and Prometheus metrics, for orchestrators and monitoring.',
      },
      { name: 'Documentation', description: 'This document (JSON) and a page that renders it; public.' },
    ],
  });
}
