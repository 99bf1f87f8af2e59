/** One zod schema per request: used to validate and (issue 3) to generate the OpenAPI document. */
import { z } from 'zod';

export const MAX_CHARGE_AMOUNT_CENTS = 1_000_000_000; // R$ 10,000,000.00
export const MAX_CHARGE_TTL_DAYS = 30;

const splitItem = z
  .object({
    merchantId: z.uuid(),
    amountCents: z.number().int().positive().optional(),
    percentage: z.number().gt(0).max(100).multipleOf(0.01).optional(),
  })
  .strict();

export const createSellerPixBody = z
  .object({
    amountCents: z.number().int().positive().max(MAX_CHARGE_AMOUNT_CENTS),
    description: z.string().max(255).optional(),
    externalRef: z.string().min(1).max(128).optional(),
    expiresAt: z.iso.datetime({ offset: true }).optional(),
    metadata: z.record(z.string().max(64), z.unknown()).optional(),
    splits: z.array(splitItem).max(20).optional(),
  })
  .strict();

export type CreateSellerPixBody = z.infer<typeof createSellerPixBody>;

export const chargeLookupId = z.string().min(1).max(128);
