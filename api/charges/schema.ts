/** Bodies, queries and answers of /charges (application API); the same schemas validate and document. */
import { z } from 'zod';
import { isValidCnpj, isValidCpf, onlyDigits } from '../../core/documents';
import { metadata } from '../validation/metadata';
import { text } from '../validation/text';
import { MAX_CHARGE_AMOUNT_CENTS } from './sellers/schema';

/** Limits of the boleto terms (create body). */
export const MAX_FINE_BPS = 200;
export const MAX_MONTHLY_INTEREST_BPS = 1_000;
export const MAX_GRACE_DAYS = 60;

export const APP_CHARGE_STATUSES = ['PENDING', 'PAID', 'EXPIRED', 'CANCELED'] as const;
export const CHARGE_METHODS = ['PIX', 'BOLETO'] as const;

const taxId = () =>
  z
    .string()
    .regex(/^[0-9./ -]{11,18}$/, 'a CPF or CNPJ: digits, optionally with . / - separators')
    .refine((v) => isValidCpf(v) || isValidCnpj(v), 'not a valid CPF or CNPJ (check digits)')
    .transform(onlyDigits)
    .meta({ example: '529.982.247-25' });

/** Who pays (a boleto is registered in the payer's name). */
export const payerSchema = z.strictObject({
  name: text().trim().min(2).max(140),
  taxId: taxId(),
  email: z.email().max(254).optional(),
});

/** Late-payment terms of a boleto (also POST /boletos). */
export const boletoTermsSchema = z.strictObject({
  finePercentBps: z.number().int().min(0).max(MAX_FINE_BPS).default(0).meta({
    description:
      'One-off fine (multa) after the due date and grace days, in basis points of the amount (200 = 2 %; the law caps it at 2 %).',
  }),
  monthlyInterestBps: z.number().int().min(0).max(MAX_MONTHLY_INTEREST_BPS).default(0).meta({
    description:
      'Simple interest (juros de mora) per 30 days after the due date and grace days, in basis points (100 = 1 % a month).',
  }),
  graceDays: z.number().int().min(0).max(MAX_GRACE_DAYS).default(0).meta({
    description:
      'Days after the due date with neither fine nor interest; the boleto is closed (baixa) at expiresAt plus these days.',
  }),
});

export const createChargeBody = z.strictObject({
  merchantId: z.uuid(),
  amountCents: z.number().int().min(1).max(MAX_CHARGE_AMOUNT_CENTS),
  currency: z.literal('BRL').default('BRL'),
  description: text().max(255).optional(),
  method: z.enum(CHARGE_METHODS).default('PIX'),
  expiresAt: z.iso
    .datetime({ offset: true })
    .optional()
    .meta({ description: 'Default: 1 hour from now; between 1 minute and 30 days from now.' }),
  externalRef: text().min(1).max(128).optional(),
  metadata: metadata().optional(),
  payer: payerSchema
    .optional()
    .meta({ description: 'Who pays. Required for BOLETO (a boleto is registered in the payer’s name).' }),
  boleto: boletoTermsSchema.optional().meta({
    description:
      'BOLETO only: late-payment terms. `expiresAt` is the due date and time (the due date is its calendar day in Brasília).',
  }),
});
export type CreateChargeBody = z.output<typeof createChargeBody>;

export const listChargesQuery = z.strictObject({
  merchantId: z.uuid().optional().meta({ description: 'Default: the merchant you own (or first belong to).' }),
  status: z.enum(APP_CHARGE_STATUSES).optional(),
  method: z.enum(CHARGE_METHODS).optional(),
  createdFrom: z.iso.datetime({ offset: true }).optional(),
  createdTo: z.iso.datetime({ offset: true }).optional(),
  externalRef: text().min(1).max(128).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export type ListChargesQuery = z.output<typeof listChargesQuery>;

export const chargeIdParam = z.uuid();
export const cancelChargeBody = z.strictObject({ reason: text().min(1).max(255).optional() });

export const refundView = z.object({
  id: z.uuid(),
  amountCents: z.number().int(),
  reason: z.string(),
  status: z
    .enum(['PROCESSING', 'SUCCEEDED', 'FAILED'])
    .describe('PROCESSING (shares reserved, devolução under way) → SUCCEEDED | FAILED (shares released).'),
  failureCode: z.string().nullable(),
  failureReason: z.string().nullable(),
  endToEndId: z.string().nullable().describe('Of the devolução, once SUCCEEDED.'),
  createdAt: z.iso.datetime(),
  settledAt: z.iso.datetime().nullable(),
});

export const appCharge = z.object({
  id: z.uuid(),
  merchantId: z.uuid(),
  amountCents: z.number().int(),
  currency: z.literal('BRL'),
  description: z.string().nullable(),
  status: z
    .enum(APP_CHARGE_STATUSES)
    .describe('PENDING → PAID | EXPIRED | CANCELED. (The seller API spells CANCELLED.)'),
  method: z.enum(CHARGE_METHODS).nullable(),
  expiresAt: z.iso.datetime().nullable(),
  idempotencyKey: z
    .string()
    .nullable()
    .describe('The x-idempotency-key it was created with; null for a seller-API charge created without one.'),
  externalRef: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  pix: z
    .object({ qrCode: z.string().describe('PNG, base64'), copyPaste: z.string(), expiresAt: z.iso.datetime() })
    .nullable(),
  boleto: z
    .object({
      barcode: z.string().describe('44 digits (FEBRABAN).'),
      digitableLine: z.string().describe('47 digits (linha digitável), no punctuation.'),
      pdfUrl: z.string().describe('GET it with your bearer token: the boleto as PDF.'),
      expiresAt: z.iso.datetime().describe('Due date and time.'),
      payment: z
        .object({
          amountCents: z.number().int().describe('What was paid (and credited): may differ from amountCents.'),
          via: z.enum(['BOLETO', 'PIX']).describe('Barcode or the hybrid boleto’s Pix.'),
          late: z.boolean().describe('Paid after the due date.'),
          underpaid: z.boolean().describe('Less than was owed that day (face amount plus fine and interest).'),
          overpaid: z.boolean().describe('More than was owed that day.'),
        })
        .nullable()
        .optional()
        .describe('Once PAID: what the provider says was paid. A boleto is settled for what was paid.'),
    })
    .nullable(),
  refunds: z.array(refundView).describe('Oldest first.'),
  refundedAmountCents: z.number().int().describe('Sum of the SUCCEEDED refunds.'),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
