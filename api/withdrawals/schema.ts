/** Request schemas of the withdrawal (saque) routes. */
import { z } from 'zod';
import { text } from '../validation/text';

export const MAX_WITHDRAWAL_AMOUNT_CENTS = 1_000_000_000; // R$ 10,000,000.00, as for charges

export const createWithdrawalBody = z
  .object({
    amountCents: z.number().int().positive().max(MAX_WITHDRAWAL_AMOUNT_CENTS),
    /** Kept with the withdrawal for operators and receipts; the Withdrawal object has no such field. */
    description: text().max(140).optional(),
  })
  .strict();

export type CreateWithdrawalBody = z.infer<typeof createWithdrawalBody>;

/** Query strings are text: numbers are parsed, unknown parameters refused. */
export const listWithdrawalsQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  })
  .strict();

export type ListWithdrawalsQuery = z.infer<typeof listWithdrawalsQuery>;

/**
 * A withdrawal id as a client sends it: the spec's 1 to 120 characters. The one schema of
 * GET /sellers/saques/{id} and GET /v1/receipts/withdrawals/{id}, so both take the same ids;
 * an id that names none of the merchant's withdrawals is 404 on both
 * (findMerchantWithdrawal, db/withdrawals/withdrawalStore.ts).
 */
export const withdrawalId = text().min(1).max(120).meta({
  description: 'Withdrawal id (1 to 120 characters; ours are UUIDs).',
  example: '3f2b8c1e-6a4d-4e8b-9c1f-2d7e5a9b0c13',
});
