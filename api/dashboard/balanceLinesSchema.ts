/**
 * GET /dashboard/balance/lines (issue 38, "every merchant's balance explained line by line"): the
 * query and the answer; the same schemas validate and document (balanceLinesOpenapi.ts).
 */
import { z } from 'zod';
import { MERCHANT_ACCOUNTS } from '../../db/ledger';
import { merchantIdField } from './schema';

export const MAX_BALANCE_LINES = 100;

export const balanceLinesQuery = z.strictObject({
  merchantId: merchantIdField(),
  account: z
    .enum(MERCHANT_ACCOUNTS)
    .optional()
    .meta({ description: 'Only this account’s lines (default: all four, interleaved newest first).' }),
  limit: z.coerce.number().int().min(1).max(MAX_BALANCE_LINES).default(20),
  cursor: z
    .string()
    .regex(/^[1-9][0-9]{0,17}$/, 'a cursor from a previous page (pagination.nextCursor)')
    .optional()
    .meta({ description: 'The previous page’s pagination.nextCursor: the lines older than that page.' }),
});
export type BalanceLinesQuery = z.output<typeof balanceLinesQuery>;

const cents = () => z.number().int();

export const balanceLineView = z.object({
  id: z.string().describe('The ledger posting’s id (lines are ordered by it, newest first).'),
  transactionId: z.uuid().describe('The ledger transaction the line belongs to (one movement, balanced).'),
  createdAt: z.iso.datetime(),
  account: z.enum(MERCHANT_ACCOUNTS),
  amountCents: cents().describe('Signed: what the line added to (positive) or took from (negative) the account.'),
  balanceAfterCents: cents().describe('The account’s balance right after this line.'),
  kind: z
    .string()
    .describe(
      'The movement (the ledger transaction’s kind): CHARGE_PAID, WITHDRAWAL_RESERVED | COMPLETED | RELEASED, ' +
        'REFUND_RESERVED | COMPLETED | RELEASED, PAYOUT_RESERVE, PAYOUT_ITEM_PAID | RELEASED, PAYOUT_CANCEL_RELEASE, ' +
        'SENT_PIX_RETURNED, SPLIT_SEND_COMPLETED, MED_BLOCKED, MED_RECOVERED, MED_UNBLOCKED, MED_DEBT_CANCELLED.',
    ),
  reference: z
    .object({
      type: z
        .string()
        .describe(
          'What moved the money: charge, withdrawal, refund, payout_batch, payout_item, split_send or med_infraction.',
        ),
      id: z.string().describe('Its id (a charge id, withdrawal id, refund id, infraction id…).'),
    })
    .describe('What the movement belongs to, as the ledger recorded it.'),
});

export const balanceLinesView = z.object({
  merchantId: z.uuid(),
  balances: z
    .object({
      availableCents: cents(),
      reservedCents: cents(),
      blockedCents: cents().describe('Held for open Pix infractions (MED).'),
      owedCents: cents().describe(
        'Minus what the merchant owes for MED claims its balance did not cover (≤ 0; 0 when it owes nothing).',
      ),
    })
    .describe(
      'The ledger’s balances now, read in the same snapshot as the lines: each is the sum of all its lines (every page).',
    ),
  data: z.array(balanceLineView).describe('Newest first.'),
  pagination: z.object({
    limit: z.number().int(),
    hasMore: z.boolean(),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next (older) page; null on the last page.'),
  }),
});
