/** Request schemas of the withdrawal (saque) routes. */
import { z } from 'zod';
import { text } from '../../validation/text';

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

export const withdrawalId = text().min(1).max(120);
