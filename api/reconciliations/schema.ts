/** Bodies, queries and answers of /reconciliations (application API); the same schemas validate and document. */
import { z } from 'zod';

/** The longest range one reconciliation covers: a month's statement. */
export const MAX_RECONCILIATION_DAYS = 31;

const isoDay = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'expected a date YYYY-MM-DD')
  .refine(
    (d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d),
    'not a calendar date',
  );

const dayNumber = (d: string) => Date.parse(`${d}T00:00:00Z`) / 86_400_000;

export const createReconciliationBody = z
  .strictObject({
    merchantId: z.uuid().optional().meta({
      description:
        'The merchant whose books are reconciled (you must be its owner, admin or finance). Omitted: a platform-wide run over every merchant’s books, for platform operators only (anyone else → 400 VALIDATION_ERROR on merchantId).',
    }),
    from: isoDay.meta({ description: 'First day (Brasília calendar day, inclusive).' }),
    to: isoDay.meta({
      description: `Last day (inclusive); at most ${MAX_RECONCILIATION_DAYS} days after from’s start, not in the future.`,
    }),
  })
  .superRefine((b, ctx) => {
    if (!isoDay.safeParse(b.from).success || !isoDay.safeParse(b.to).success) return;
    const span = dayNumber(b.to) - dayNumber(b.from) + 1;
    if (span < 1) ctx.addIssue({ code: 'custom', path: ['to'], message: 'to must not be before from' });
    else if (span > MAX_RECONCILIATION_DAYS)
      ctx.addIssue({
        code: 'custom',
        path: ['to'],
        message: `the range covers at most ${MAX_RECONCILIATION_DAYS} days`,
      });
  });
export type CreateReconciliationBody = z.output<typeof createReconciliationBody>;

export const listReconciliationsQuery = z.strictObject({
  merchantId: z.uuid().optional().meta({ description: 'Default: the merchant you own (or first belong to).' }),
  platform: z
    .enum(['true', 'false'])
    .optional()
    .transform((v) => v === 'true')
    .meta({
      description:
        'true: the platform-wide runs (no merchant) instead of a merchant’s; platform operators only. Not with merchantId.',
    }),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export type ListReconciliationsQuery = z.output<typeof listReconciliationsQuery>;

export const reconciliationIdParam = z.uuid();

// --- answers --------------------------------------------------------------------------------

export const reconciliationDifferenceView = z.object({
  kind: z.enum(['MISSING_IN_LEDGER', 'MISSING_AT_PROVIDER', 'AMOUNT_MISMATCH']),
  subject: z
    .enum(['PAYMENT', 'RETURN', 'TRANSFER', 'BALANCE'])
    .describe(
      'PAYMENT: a Pix charge paid; RETURN: a devolução (refund) sent to the payer; TRANSFER: a withdrawal, settlement or payout item sent out; BALANCE: a connected merchant’s PSP balance (saldo) against its ledger mirror (available + reserved + blocked), in a connection’s reconciliation only.',
    ),
  chargeId: z.string().nullable().describe('PAYMENT and RETURN; null for a TRANSFER.'),
  refundId: z.string().nullable().describe('RETURN only.'),
  transferId: z
    .string()
    .nullable()
    .describe('TRANSFER only: the withdrawal (a settlement’s too) or payout item id, our reference at the provider.'),
  transferKind: z
    .enum(['WITHDRAWAL', 'PAYOUT_ITEM', 'SPLIT_SEND'])
    .nullable()
    .describe("TRANSFER only. SPLIT_SEND: a split recipient's share sent from the charge owner's account."),
  providerChargeId: z.string().nullable(),
  endToEndId: z.string().nullable(),
  providerAmountCents: z
    .number()
    .int()
    .nullable()
    .describe(
      'What the provider’s statement says; null when the payment is not on it. BALANCE: the PSP account’s saldo.',
    ),
  ledgerAmountCents: z
    .number()
    .int()
    .nullable()
    .describe(
      'What the ledger booked: the payer’s gross on CHARGE_PAID, the devolução on REFUND_COMPLETED, the amount sent to provider clearing on WITHDRAWAL_COMPLETED or PAYOUT_ITEM_PAID (fees stay with us); null when there is no entry. BALANCE: the merchant’s available + reserved + blocked ledger balances.',
    ),
  healed: z
    .boolean()
    .describe(
      'A lost payment handed to the normal settlement path (the charge’s lifecycle, or the late-payment path), which asks the provider and credits it once.',
    ),
  resolution: z
    .string()
    .nullable()
    .describe(
      'What that path answered: SIGNALLED, LATE_PAYMENT, ALREADY_PAID, DUPLICATE_PAYMENT; REFUND_IN_PROGRESS or TRANSFER_IN_PROGRESS for money out whose workflow has not settled yet (it settles by the provider’s record).',
    ),
});

export const reconciliationView = z.object({
  id: z.uuid(),
  merchantId: z
    .uuid()
    .nullable()
    .describe('null: a platform-wide run (every merchant’s books; platform operators only).'),
  pspConnectionId: z
    .uuid()
    .nullable()
    .describe(
      'The merchant’s own PSP connection whose account this run compared (the connected model; the daily run makes one per active connection); null: the platform’s account.',
    ),
  from: z.string(),
  to: z.string(),
  status: z.enum(['RUNNING', 'COMPLETED', 'FAILED']),
  counts: z.object({
    matched: z.number().int(),
    missingInLedger: z.number().int(),
    missingAtProvider: z.number().int(),
    amountMismatch: z.number().int(),
    healed: z.number().int(),
  }),
  differences: z.array(reconciliationDifferenceView),
  failureReason: z.string().nullable(),
  createdAt: z.iso.datetime(),
  completedAt: z.iso.datetime().nullable(),
});
export type ReconciliationView = z.infer<typeof reconciliationView>;
