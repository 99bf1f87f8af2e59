/**
 * Queries and answers of the dashboard's figures (figuresRouter.ts); the same schemas validate
 * and document (figuresOpenapi.ts). Every amount is an integer number of cents (BRL); every day
 * is a calendar day in America/Sao_Paulo. Definitions: docs/api/dashboard.md.
 */
import { z } from 'zod';
import { APP_CHARGE_STATUSES } from '../charges/schema';
import { merchantIdField } from './schema';

export const PERIODS = { '7d': 7, '30d': 30, '90d': 90, '365d': 365 } as const;
export type Period = keyof typeof PERIODS;
export const DASHBOARD_METHODS = ['PIX', 'BOLETO', 'CARD'] as const;
/** Deep pages cost a scan of everything before them: offset is bounded. */
const MAX_OFFSET = 10_000;

const period = z
  .enum(Object.keys(PERIODS) as [Period, ...Period[]])
  .default('30d')
  .meta({ description: 'The last 7, 30, 90 or 365 days in America/Sao_Paulo, today included.' });
const limit = (max: number, def: number) => z.coerce.number().int().min(1).max(max).default(def);
const offset = z.coerce.number().int().min(0).max(MAX_OFFSET).default(0);
const isoDay = z.iso.date({ error: 'a date YYYY-MM-DD' });

export const merchantQuery = z.strictObject({ merchantId: merchantIdField() });

export const summaryQuery = z.strictObject({
  merchantId: merchantIdField(),
  period,
  topLimit: limit(50, 5).meta({ description: 'How many top payers (1–50, default 5).' }),
  interactionsLimit: limit(100, 20).meta({ description: 'How many recent interactions (1–100, default 20).' }),
});
export type SummaryQuery = z.output<typeof summaryQuery>;

export const periodQuery = z.strictObject({ merchantId: merchantIdField(), period });

export const pageQuery = z.strictObject({ merchantId: merchantIdField(), limit: limit(100, 20), offset });

export const transactionsQuery = z
  .strictObject({
    merchantId: merchantIdField(),
    status: z.enum(APP_CHARGE_STATUSES).optional(),
    method: z
      .enum(DASHBOARD_METHODS)
      .optional()
      .meta({ description: 'CARD exists for the metrics; no charge has it, so it lists nothing.' }),
    from: isoDay.optional().meta({ description: 'Created on or after this day (America/Sao_Paulo).' }),
    to: isoDay.optional().meta({ description: 'Created on or before this day (America/Sao_Paulo).' }),
    limit: limit(100, 20),
    offset,
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: 'from must not be after to', path: ['from'] });
export type TransactionsQuery = z.output<typeof transactionsQuery>;

const cents = () => z.number().int();
const count = () => z.number().int().min(0);

export const metricsView = z.object({
  totalSales: cents().describe(
    'Gross cents of PAID charges (what payers paid; a boleto by its paid amount), before fees and refunds. All time.',
  ),
  totalTransactions: count().describe('Charges created, any status.'),
  averageTicket: cents().describe('totalSales / approvedPayments, rounded to the cent; 0 with no payment.'),
  pixSales: cents().describe('totalSales of PIX charges.'),
  cardSales: cents().describe('Always 0: the gateway has no card method yet.'),
  boletoSales: cents().describe('totalSales of BOLETO charges (paid by barcode or by the Pix QR code of the boleto).'),
  approvedPayments: count().describe('PAID charges, refunded ones included.'),
  refundedPayments: count().describe('Charges with at least one SUCCEEDED refund (partial or full).'),
  failedPayments: count().describe('Charges that ended EXPIRED or CANCELED (no other failure state exists).'),
});

const totals = z.object({
  salesCents: cents().describe('Gross of charges PAID in the period (by payment day).'),
  feesCents: cents().describe('Platform fees of those payments.'),
  refundedCents: cents().describe('SUCCEEDED refunds settled in the period.'),
  netCents: cents().describe('salesCents − feesCents − refundedCents.'),
  transactions: count().describe('Charges created in the period.'),
  approvedPayments: count().describe('Charges paid in the period.'),
  failedPayments: count().describe('Charges created in the period that are now EXPIRED or CANCELED.'),
  refunds: count().describe('Refunds SUCCEEDED in the period.'),
  averageTicketCents: cents(),
  conversionRate: z
    .number()
    .min(0)
    .describe(
      'approvedPayments / transactions (0 when none); may exceed 1 when older charges were paid in the period.',
    ),
});

export const interactionView = z.object({
  type: z.enum([
    'charge.created',
    'charge.paid',
    'charge.expired',
    'charge.canceled',
    'refund.processing',
    'refund.succeeded',
    'refund.failed',
  ]),
  occurredAt: z.iso.datetime(),
  chargeId: z.uuid(),
  refundId: z.uuid().nullable(),
  method: z.enum(['PIX', 'BOLETO']),
  amountCents: cents(),
});

export const summaryView = z.object({
  merchantId: z.uuid(),
  period: z.enum(Object.keys(PERIODS) as [Period, ...Period[]]),
  timezone: z.literal('America/Sao_Paulo'),
  from: z.string().describe('First day of the period (YYYY-MM-DD).'),
  to: z.string().describe('Today (YYYY-MM-DD).'),
  totals,
  byMethod: z
    .array(z.object({ method: z.enum(DASHBOARD_METHODS), salesCents: cents(), payments: count() }))
    .describe('PIX, BOLETO, CARD, always in that order.'),
  topPayers: z
    .array(
      z.object({
        name: z.string().nullable(),
        document: z.string().nullable().describe('Masked.'),
        payments: count(),
        amountCents: cents(),
      }),
    )
    .describe('Payers (by document, else name) of the charges paid in the period, by amount paid, largest first.'),
  recentInteractions: z.array(interactionView).describe('Newest first, as GET /dashboard/interactions.'),
});

export const statsView = z.object({
  merchantId: z.uuid(),
  balance: z
    .object({
      availableCents: cents().describe(
        'source ledger: the ledger’s available balance. source psp: the connected account’s saldo less our holds ' +
          'on money in it, max(0, saldo − reservedCents − blockedCents), the saldo of the last reading carried ' +
          'forward by what the ledger recorded since (max(0, ledger available + psp.differenceCents)).',
      ),
      reservedCents: cents().describe('Reserved by money out in progress (payouts, refunds); always the ledger’s.'),
      blockedCents: cents().describe(
        'Disputed by open Pix infractions (MED): neither withdrawable nor refundable until decided; always the ledger’s.',
      ),
      source: z
        .enum(['ledger', 'psp'])
        .describe(
          'Where availableCents comes from: ledger (the platform account model, or a connected account not read yet) ' +
            'or psp (the connected account’s balance at its PSP, `psp` below).',
        ),
      psp: z
        .object({
          connectionId: z.uuid().describe('The merchant’s PSP connection whose account was read.'),
          saldoCents: cents().describe('The account’s balance as its PSP told it at readAt (Efí GET /v2/gn/saldo).'),
          readAt: z.iso.datetime().describe('When the worker read it (every minute while the connection is active).'),
          mirrorCents: cents().describe(
            'The ledger’s mirror of the account at the same instant: available + reserved + blocked.',
          ),
          differenceCents: cents().describe(
            'saldoCents − mirrorCents: money at the PSP the ledger does not know of (positive) or missing there ' +
              '(negative); the daily reconciliation reports it.',
          ),
        })
        .nullable()
        .describe(
          'The last reading of a connected merchant’s own PSP account; null in the platform model and before the ' +
            'first reading.',
        ),
    })
    .describe(
      'The merchant’s balances now. In the connected account model the money is in the merchant’s own PSP ' +
        'account and the ledger mirrors it: available is then the PSP’s figure (source psp).',
    ),
  charges: z.object({ total: count(), pending: count(), paid: count(), failed: count(), refunded: count() }),
  amounts: z
    .object({ salesCents: cents(), feesCents: cents(), refundedCents: cents(), netCents: cents() })
    .describe('All time; as in the summary totals.'),
  today: z.object({ day: z.string(), salesCents: cents(), payments: count(), transactions: count() }),
});

export const revenueDay = z.object({
  day: z.string().describe('YYYY-MM-DD, America/Sao_Paulo'),
  salesCents: cents(),
  feesCents: cents(),
  refundedCents: cents(),
  netCents: cents(),
  payments: count(),
});
export const revenueView = z.object({
  merchantId: z.uuid(),
  timezone: z.literal('America/Sao_Paulo'),
  from: z.string(),
  to: z.string(),
  days: z.array(revenueDay).describe('Every day from `from` to `to`, oldest first; days without movement are zeros.'),
});

export const transactionView = z.object({
  id: z.uuid(),
  status: z.enum(APP_CHARGE_STATUSES),
  method: z.enum(['PIX', 'BOLETO']),
  amountCents: cents(),
  paidAmountCents: cents().nullable().describe('What the payer paid, when PAID.'),
  feeCents: cents(),
  refundedAmountCents: cents().describe('SUCCEEDED refunds.'),
  description: z.string().nullable(),
  externalRef: z.string().nullable(),
  createdAt: z.iso.datetime(),
  paidAt: z.iso.datetime().nullable(),
});

export const healthView = z.object({
  merchantId: z.uuid(),
  status: z
    .enum(['HEALTHY', 'DEGRADED', 'FAILING', 'NO_TRAFFIC'])
    .describe('From successRate: NO_TRAFFIC when null, HEALTHY ≥ 0.95, DEGRADED ≥ 0.5, else FAILING.'),
  webhooks: z.object({
    windowHours: z.literal(24),
    delivered: count().describe('Deliveries SUCCEEDED in the window.'),
    failed: count().describe('Deliveries FAILED (gave up) in the window.'),
    retrying: count().describe('Deliveries still PENDING after at least one failed attempt.'),
    pending: count().describe('Deliveries still PENDING (retrying ones included).'),
    successRate: z
      .number()
      .min(0)
      .max(1)
      .nullable()
      .describe('delivered / (delivered + failed + retrying); null with none of them.'),
  }),
  endpoints: z.object({ active: count(), disabled: count() }),
  failingEndpoints: z
    .array(
      z.object({
        id: z.uuid(),
        url: z.string(),
        active: z.boolean(),
        failedDeliveries: count(),
        lastStatusCode: z.number().int().nullable(),
        lastError: z.string().nullable(),
        lastFailureAt: z.iso.datetime(),
      }),
    )
    .describe(
      'Endpoints with a FAILED or retrying delivery in the window, or disabled; most failures first (50 at most).',
    ),
  lastProviderCallback: z
    .object({ type: z.string(), receivedAt: z.iso.datetime(), chargeId: z.uuid() })
    .nullable()
    .describe('The last callback the payment provider sent about one of the merchant’s charges.'),
});
