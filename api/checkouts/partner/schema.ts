/**
 * Bodies and queries of /v1/checkouts (partner checkout P0); the same schemas validate and
 * document (openapi.ts). The P0 refusals (frequency, customerId, coupons) are accepted by the
 * schema and refused by the service with their own 422 codes, so a partner hears *why*.
 */
import { z } from 'zod';
import { metadata } from '../../validation/metadata';
import { httpUrl, text } from '../../validation/text';
import { CHECKOUT_STATUSES } from '../../../db/checkouts';

export const MAX_CHECKOUT_ITEMS = 50;
export const MAX_ITEM_QUANTITY = 1000;

/**
 * A checkout id. The pattern is documented, not validated here: an id of another form is the
 * spec's 422 INVALID_CHECKOUT_ID (checked by the service), not a 400.
 */
const billIdText = () =>
  z.string().max(100).meta({
    description: 'A checkout id: `bill_` followed by a UUID; another form → 422 INVALID_CHECKOUT_ID.',
    pattern: '^bill_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
    example: 'bill_0b5c2c4e-5d1f-4f0e-9a57-2f3d4b1e8c11',
  });

export const createCheckoutBody = z.strictObject({
  items: z
    .array(
      z.strictObject({
        id: z.uuid().describe('A course price id.'),
        quantity: z.number().int().min(1).max(MAX_ITEM_QUANTITY),
      }),
    )
    .min(1)
    .max(MAX_CHECKOUT_ITEMS),
  frequency: text()
    .max(64)
    .default('ONE_TIME')
    .describe('Only ONE_TIME in P0; any other value → 422 FREQUENCY_NOT_ENABLED_YET.'),
  customerId: z
    .unknown()
    .optional()
    .describe('Not enabled in P0: any value other than null → 422 CUSTOMER_NOT_ENABLED_IN_P0.'),
  coupons: z
    .array(z.unknown())
    .max(100)
    .default([])
    .describe('Not enabled in P0: a non-empty array → 422 COUPONS_NOT_ENABLED_IN_P0.'),
  returnUrl: httpUrl()
    .max(2048)
    .describe('Where the page links back to. Absolute http(s) URL; https only in production.'),
  completionUrl: httpUrl()
    .max(2048)
    .describe('Where the page sends the buyer once paid. Absolute http(s) URL; https only in production.'),
  externalId: text().min(1).max(128).describe('Your id for this checkout (filterable).'),
  metadata: metadata().default({}),
  expiresAt: z.iso
    .datetime({ offset: true })
    .optional()
    .describe("When the Pix charge expires: 1 minute to 30 days from now; default the server's charge lifetime."),
});
export type CreateCheckoutBody = z.output<typeof createCheckoutBody>;

export const checkoutIdParam = billIdText();

export const listCheckoutsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: billIdText().optional().describe('The `pagination.next` of the previous page.'),
  id: billIdText().optional(),
  externalId: text().min(1).max(128).optional(),
  status: z.enum(CHECKOUT_STATUSES).optional(),
});
export type ListCheckoutsQuery = z.output<typeof listCheckoutsQuery>;

/** The P0 public object (core/checkouts/present.ts). */
export const p0Checkout = z.object({
  id: z.string().describe('`bill_` + UUID.'),
  externalId: z.string().nullable(),
  url: z.string().describe('The hosted checkout page.'),
  amount: z.number().int().describe('Cents of BRL: Σ price × quantity.'),
  paidAmount: z.number().int().nullable(),
  items: z.array(z.object({ id: z.string(), quantity: z.number().int() })),
  status: z.enum(CHECKOUT_STATUSES),
  frequency: z.literal('ONE_TIME'),
  coupons: z.array(z.unknown()).max(0).describe('Always empty in P0.'),
  devMode: z.literal(false),
  customerId: z.null(),
  returnUrl: z.string().nullable(),
  completionUrl: z.string().nullable(),
  receiptUrl: z.null(),
  metadata: z.record(z.string(), z.unknown()),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
