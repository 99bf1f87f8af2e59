/** Queries, bodies and answers of /boletos (application API); the same schemas validate and document. */
import { z } from 'zod';
import { isIsoDate } from '../../core/boletos';
import { text } from '../validation/text';
import { MAX_CHARGE_AMOUNT_CENTS } from '../charges/sellers/schema';
import { APP_CHARGE_STATUSES, boletoTermsSchema, payerSchema } from '../charges/schema';

export const MAX_BOLETOS_PER_REQUEST = 1_000;

export const consultQuery = z.strictObject({
  // 44 or 47 digits, separators allowed, not a utility bill (those start with 8): the document
  // says exactly what the route reads.
  code: z
    .string()
    .min(1)
    .max(80)
    .regex(
      /^[\s.-]*[0-79][\s.-]*(?:\d[\s.-]*){43}(?:(?:\d[\s.-]*){3})?$/,
      'a digitable line (47 digits) or a barcode (44 digits) of a bank boleto',
    )
    .meta({
      description: 'A digitable line (47 digits; dots, spaces and dashes allowed) or a barcode (44 digits).',
      example: '00190.00009 01234.567891 23456.789018 1 10000000010000',
    }),
});

export const BOLETO_CODE_ERROR_FIELDS = ['currency', 'field1', 'field2', 'field3', 'general'] as const;

export const boletoConsultation = z.object({
  valid: z.boolean().describe('Every check digit right and currency 9 (real).'),
  type: z.enum(['DIGITABLE_LINE', 'BARCODE']).describe('What was given.'),
  barcode: z.string().describe('44 digits.'),
  digitableLine: z
    .string()
    .describe('47 digits, no punctuation; rebuilt (with right field check digits) when a barcode was given.'),
  bankCode: z.string().describe('3 digits (FEBRABAN bank code).'),
  amountCents: z.number().int().describe('0 when the boleto leaves the amount open.'),
  dueDate: z.iso
    .date()
    .nullable()
    .describe(
      'YYYY-MM-DD from the due-date factor (with the 2025-02-22 reset, read in today’s cycle); null for factor 0000 (no due date).',
    ),
  errors: z
    .array(z.object({ field: z.enum(BOLETO_CODE_ERROR_FIELDS), message: z.string() }))
    .describe(
      'Which check digit is wrong: field1..field3 (mod 10 of the digitable line’s fields), general (mod 11, position 5 of the barcode), or currency.',
    ),
});

const dueDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'a calendar date YYYY-MM-DD')
  .refine(isIsoDate, 'a calendar date YYYY-MM-DD')
  .meta({
    description: 'The due date (YYYY-MM-DD): payable through that whole day in Brasília; from today to 30 days ahead.',
    example: '2030-01-15',
  });

export const boletoItem = z.strictObject({
  amountCents: z.number().int().min(1).max(MAX_CHARGE_AMOUNT_CENTS),
  dueDate,
  payer: payerSchema,
  description: text().max(255).optional(),
  externalRef: text().min(1).max(128).optional(),
});

export const createBoletosBody = z.strictObject({
  merchantId: z.uuid(),
  items: z.array(boletoItem).min(1).max(MAX_BOLETOS_PER_REQUEST),
  terms: boletoTermsSchema
    .optional()
    .meta({ description: 'Late-payment terms for every boleto of the request (fine, monthly interest, grace days).' }),
});
export type CreateBoletosBody = z.output<typeof createBoletosBody>;

export const listBoletosQuery = z.strictObject({
  merchantId: z.uuid().optional().meta({ description: 'Default: the merchant you own (or first belong to).' }),
  status: z.enum(APP_CHARGE_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export type ListBoletosQuery = z.output<typeof listBoletosQuery>;

export const batchItemsQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(1_000).default(100),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const idParam = z.uuid();

export const BOLETO_BATCH_STATUSES = ['PROCESSING', 'COMPLETED', 'COMPLETED_WITH_FAILURES'] as const;
export const BOLETO_ITEM_STATUSES = ['PENDING', 'ISSUED', 'FAILED', 'CANCELLED'] as const;

export const boletoBatchItemView = z.object({
  id: z.uuid(),
  rowIndex: z.number().int().describe('Position in the request’s items (0-based).'),
  status: z.enum(BOLETO_ITEM_STATUSES).describe('PENDING → ISSUED | FAILED; PENDING or ISSUED → CANCELLED (DELETE).'),
  chargeId: z.uuid().nullable().describe('The BOLETO charge, once issued (GET /boletos/{id}).'),
  amountCents: z.number().int(),
  dueDate: z.iso.date(),
  externalRef: z.string().nullable(),
  errorCode: z
    .string()
    .nullable()
    .describe(
      'Why it FAILED: PROVIDER_REJECTED, PROVIDER_NOT_ISSUED, PROVIDER_UNAVAILABLE (after every try), MERCHANT_INACTIVE, ISSUE_FAILED.',
    ),
  errorMessage: z.string().nullable(),
  attempts: z.number().int().describe('Tries made (each a new charge at the provider).'),
});

export const boletoBatchView = z.object({
  id: z.uuid(),
  merchantId: z.uuid(),
  status: z.enum(BOLETO_BATCH_STATUSES),
  itemsCount: z.number().int(),
  counts: z.object({
    pending: z.number().int(),
    issued: z.number().int(),
    failed: z.number().int(),
    cancelled: z.number().int(),
  }),
  idempotencyKey: z.string(),
  createdAt: z.iso.datetime(),
  completedAt: z.iso.datetime().nullable(),
  items: z.array(boletoBatchItemView).describe('By rowIndex, one page (limit, offset).'),
  pagination: z.object({
    total: z.number().int(),
    limit: z.number().int(),
    offset: z.number().int(),
    hasMore: z.boolean(),
  }),
});

export const boletoBatchAccepted = z.object({
  batchId: z.uuid(),
  status: z.literal('PROCESSING'),
  itemsCount: z.number().int(),
});
