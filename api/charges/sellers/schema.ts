/**
 * One zod schema per request: used to validate and to generate the OpenAPI document
 * (api/charges/sellers/openapi.ts). `.meta()` only adds descriptions and examples; validation is unchanged.
 */
import { z } from 'zod';
import { metadata } from '../../validation/metadata';
import { httpUrl, text } from '../../validation/text';

export const MAX_CHARGE_AMOUNT_CENTS = 1_000_000_000; // R$ 10,000,000.00
/** The provider refuses longer descriptions (sandbox/schemas.ts, the PSP contract). */
export const MAX_CHARGE_DESCRIPTION = 140;

const splitItem = z
  .object({
    merchantId: z
      .uuid()
      .meta({ description: 'Active merchant receiving this share; not the charge owner, at most once per charge.' }),
    amountCents: z
      .number()
      .int()
      .positive()
      .optional()
      .meta({ description: 'Fixed share in cents. Send this or `percentage`.', example: 3000 }),
    percentage: z.number().gt(0).max(100).multipleOf(0.01).optional().meta({
      description: 'Share as a percentage of the charge amount (two decimals), rounded down to the cent.',
      multipleOf: 0.01,
      example: 30,
    }),
  })
  .strict()
  .refine((split) => (split.amountCents === undefined) !== (split.percentage === undefined), {
    message: 'give exactly one of amountCents and percentage',
  })
  .meta({
    description:
      'A share of the charge for another merchant: exactly one of `amountCents` and `percentage`. Shares may take at most `amountCents − fee`.',
    oneOf: [{ required: ['amountCents'] }, { required: ['percentage'] }],
  });

export const createSellerPixBody = z
  .object({
    amountCents: z
      .number()
      .int()
      .positive()
      .max(MAX_CHARGE_AMOUNT_CENTS)
      .meta({ description: 'Amount in cents of BRL.', example: 12345 }),
    description: text()
      .max(MAX_CHARGE_DESCRIPTION)
      .optional()
      .meta({
        description: `Reference text shown to the payer (the provider's limit: ${MAX_CHARGE_DESCRIPTION} characters).`,
        example: 'Pedido 1001',
      }),
    externalRef: text().min(1).max(128).optional().meta({
      description: "Caller's own identifier; also a lookup key for `GET /sellers/pix/{id}`.",
      example: 'order-1001',
    }),
    expiresAt: z.iso.datetime({ offset: true }).optional().meta({
      description:
        'ISO 8601 with offset, 1 minute to 30 days ahead; default 1 hour. (No example: any fixed instant falls outside that window one day.)',
    }),
    metadata: metadata().optional(),
    splits: z
      .array(splitItem)
      .max(20)
      .optional()
      .meta({ description: 'Up to 20 shares of the charge for other merchants.' }),
    webhook_url: httpUrl().max(2048).optional().meta({
      description: 'http(s) URL receiving the charge.* events of this charge (a webhook scoped to it is created).',
      example: 'https://loja.example/pix-events',
    }),
  })
  .strict()
  .meta({ description: 'Unknown fields are refused with 400 VALIDATION_ERROR.' });

export type CreateSellerPixBody = z.infer<typeof createSellerPixBody>;

export const chargeLookupId = text().min(1).max(128).meta({
  description: 'Charge id, `externalRef`, `providerChargeId`, `pixTxid` or `endToEndId` (newest match wins).',
  example: 'order-1001',
});
