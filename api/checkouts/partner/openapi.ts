/** OpenAPI for /v1/checkouts (router.ts), from the schemas that validate it (schema.ts); every answer in the P0 envelope. */
import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ERROR_CODES, type ErrorCode } from '../../openapi/errorCodes';
import {
  registry,
  requiredIdempotencyHeaders,
  requiredIdempotencyRule,
  security,
  signatureHeaders,
} from '../../openapi/registry';
import { checkoutIdParam, createCheckoutBody, listCheckoutsQuery, p0Checkout } from './schema';

export const P0Checkout = registry.register('P0Checkout', p0Checkout);
const P0ErrorEnvelope = registry.register(
  'P0ErrorEnvelope',
  z
    .object({
      data: z.null(),
      success: z.literal(false),
      error: z.object({
        code: z.string().describe('See the Errors table of the interface spec.'),
        message: z.string(),
        details: z.record(z.string(), z.unknown()).optional(),
      }),
    })
    .describe('Every error of the partner checkout routes: the P0 envelope with `data: null`.'),
);

export const envelopeOf = (data: z.ZodType) => z.object({ data, success: z.literal(true), error: z.null() });

export function p0Errors(...codes: ErrorCode[]): Record<string, ResponseConfig> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set<ErrorCode>([...codes, 'INTERNAL_ERROR']))
    byStatus.set(ERROR_CODES[code].status, [...(byStatus.get(ERROR_CODES[code].status) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      String(status),
      {
        description: list.join(', '),
        content: {
          'application/json': {
            schema: P0ErrorEnvelope,
            examples: Object.fromEntries(
              list.map((code) => [
                code,
                {
                  summary: code,
                  value: { data: null, success: false, error: { code, message: ERROR_CODES[code].message } },
                },
              ]),
            ),
          },
        },
      },
    ]),
  );
}

const shared = [
  'VALIDATION_ERROR',
  'CREDENTIALS_REQUIRED',
  'INVALID_CREDENTIALS',
  'MERCHANT_ID_REQUIRED',
  'INVALID_SIGNATURE',
  'INSUFFICIENT_SCOPE',
  'RATE_LIMITED',
  'NOT_FOUND',
] as const;

registry.registerPath({
  method: 'post',
  path: '/v1/checkouts',
  operationId: 'createCheckoutP0',
  tags: ['Partner checkouts P0'],
  summary: 'Create a checkout for course prices (scope checkout:write)',
  description:
    'One Pix charge for Σ price × quantity, paid on the hosted page at `url`. ' +
    requiredIdempotencyRule('Idempotency-Key') +
    'The same key and body answer the first answer again (nothing is created twice); another body → 409 DUPLICATE_IDEMPOTENCY_KEY. The request signature is verified when sent and ' +
    'required in production. Items are checked in order (exists → belongs to your merchant → active and course PUBLISHED → type ONE_TIME); the first failure answers.',
  security: security.clientCredentials,
  request: {
    headers: [...requiredIdempotencyHeaders('Idempotency-Key'), ...signatureHeaders.optional],
    body: {
      required: true,
      content: { 'application/json': { schema: registry.register('CreateCheckoutP0Request', createCheckoutBody) } },
    },
  },
  responses: {
    201: {
      description: 'The checkout.',
      content: { 'application/json': { schema: envelopeOf(P0Checkout) } },
      links: {
        getCheckoutP0: {
          operationId: 'getCheckoutP0',
          parameters: { id: '$response.body#/data/id' },
          description: 'getCheckoutP0 with `id` = `$response.body#/data/id`.',
        },
      },
    },
    ...p0Errors(
      ...shared,
      'IDEMPOTENCY_KEY_REQUIRED',
      'DUPLICATE_IDEMPOTENCY_KEY',
      'PAYLOAD_TOO_LARGE',
      'FREQUENCY_NOT_ENABLED_YET',
      'CUSTOMER_NOT_ENABLED_IN_P0',
      'COUPONS_NOT_ENABLED_IN_P0',
      'COURSE_PRICE_NOT_FOUND',
      'COURSE_PRICE_NOT_OWNED_BY_MERCHANT',
      'COURSE_PRICE_INACTIVE',
      'COURSE_PRICE_TYPE_NOT_ENABLED_YET',
      'PIX_NOT_ISSUED',
      'PROVIDER_ERROR',
      'SERVICE_UNAVAILABLE',
    ),
  },
});

registry.registerPath({
  method: 'get',
  path: '/v1/checkouts',
  operationId: 'listCheckoutsP0',
  tags: ['Partner checkouts P0'],
  summary: 'List checkouts, newest first (scope checkout:read)',
  description:
    'Keyset pages by (createdAt, id), newest first: pass `pagination.next` as `after` for the next page; checkouts created meanwhile never shift later pages. ' +
    '`after` not of the form `bill_<uuid>` → 422 INVALID_CHECKOUT_ID; a well-formed `after` naming no checkout of yours → 404 CHECKOUT_NOT_FOUND.',
  security: security.clientCredentials,
  request: { headers: signatureHeaders.optional, query: listCheckoutsQuery },
  responses: {
    200: {
      description: 'A page.',
      content: {
        'application/json': {
          schema: z.object({
            data: z.array(P0Checkout),
            success: z.literal(true),
            error: z.null(),
            pagination: z.object({
              hasMore: z.boolean(),
              next: z.string().nullable(),
              before: z.string().nullable().describe('The `after` this page was read with.'),
            }),
          }),
        },
      },
    },
    ...p0Errors(...shared, 'INVALID_CHECKOUT_ID', 'CHECKOUT_NOT_FOUND'),
  },
});

registry.registerPath({
  method: 'get',
  path: '/v1/checkouts/{id}',
  operationId: 'getCheckoutP0',
  tags: ['Partner checkouts P0'],
  summary: 'Read a checkout (scope checkout:read)',
  description:
    "The P0 public object of one of your merchant's checkouts, in the P0 envelope. `id` not of the form `bill_<uuid>` → 422 INVALID_CHECKOUT_ID; another merchant's or an unknown checkout → 404 CHECKOUT_NOT_FOUND.",
  security: security.clientCredentials,
  request: { headers: signatureHeaders.optional, params: z.object({ id: checkoutIdParam }) },
  responses: {
    200: { description: 'The checkout.', content: { 'application/json': { schema: envelopeOf(P0Checkout) } } },
    ...p0Errors(...shared, 'INVALID_CHECKOUT_ID', 'CHECKOUT_NOT_FOUND'),
  },
});
