/**
 * Shape checks for provider answers. A PSP bug or a proxy error page must surface as a
 * ProviderError here, not as an undefined field deep inside a workflow.
 */
import { z } from 'zod';
import type {
  PixKeyOwner,
  ProviderBoleto,
  ProviderCharge,
  ProviderInfraction,
  ProviderStatement,
  ProviderTransfer,
} from '../../core/provider';

const payerSchema = z.object({
  name: z.string(),
  document: z.string(),
  documentType: z.enum(['CPF', 'CNPJ']),
  email: z.string().nullable(),
  phone: z.string().nullable(),
  institution: z.string(),
  ispb: z.string(),
  agency: z.string(),
  account: z.string(),
});

export const providerChargeSchema = z.object({
  id: z.string().min(1),
  reference: z.string(),
  txid: z.string(),
  status: z.enum(['ACTIVE', 'PAID', 'CANCELLED', 'EXPIRED']),
  amountCents: z.number().int(),
  copyPaste: z.string(),
  qrCodeBase64: z.string(),
  expiresAt: z.string(),
  createdAt: z.string(),
  paidAt: z.string().nullable(),
  endToEndId: z.string().nullable(),
  payer: payerSchema.nullable(),
}) satisfies z.ZodType<ProviderCharge>;

export const providerTransferSchema = z.object({
  id: z.string().min(1),
  reference: z.string(),
  status: z.enum(['COMPLETED', 'FAILED']),
  amountCents: z.number().int(),
  pixKey: z.string(),
  pixKeyType: z.enum(['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP']),
  recipientName: z.string(),
  endToEndId: z.string().nullable(),
  failureCode: z.string().nullable(),
  failureReason: z.string().nullable(),
  createdAt: z.string(),
  returnOf: z.string().nullable().optional(),
}) satisfies z.ZodType<ProviderTransfer>;

const boletoPaymentSchema = z.object({
  via: z.enum(['BOLETO', 'PIX']),
  paidAt: z.string(),
  paidDate: z.string(),
  amountCents: z.number().int(),
  expectedAmountCents: z.number().int(),
  fineCents: z.number().int(),
  interestCents: z.number().int(),
  daysLate: z.number().int(),
  late: z.boolean(),
  amountMismatch: z.enum(['UNDERPAID', 'OVERPAID']).nullable(),
  settlement: z.enum(['D0', 'D1']),
  creditDate: z.string(),
  endToEndId: z.string().nullable(),
  payer: payerSchema,
});

export const providerBoletoSchema = z.object({
  id: z.string().min(1),
  reference: z.string(),
  status: z.enum(['REGISTERED', 'PAID', 'CANCELLED']),
  bankCode: z.string().regex(/^\d{3}$/),
  nossoNumero: z.string(),
  barcode: z.string().regex(/^\d{44}$/),
  digitableLine: z.string().regex(/^\d{47}$/),
  dueDate: z.string(),
  amountCents: z.number().int(),
  fine: z.object({ percentBps: z.number().int() }).nullable(),
  interest: z.object({ monthlyBps: z.number().int() }).nullable(),
  graceDays: z.number().int(),
  payer: z.object({ name: z.string(), document: z.string(), email: z.string().nullable() }),
  pix: z.object({
    copyPaste: z.string(),
    qrCodeBase64: z.string(),
    txid: z.string(),
    status: z.enum(['ACTIVE', 'PAID', 'CLOSED']),
  }),
  createdAt: z.string(),
  paidAt: z.string().nullable(),
  cancelledAt: z.string().nullable(),
  payment: boletoPaymentSchema.nullable(),
}) satisfies z.ZodType<ProviderBoleto>;

export const providerStatementSchema = z.object({
  from: z.string(),
  to: z.string(),
  payments: z.array(
    z.object({
      providerChargeId: z.string().min(1),
      reference: z.string(),
      amountCents: z.number().int(),
      endToEndId: z.string(),
      paidAt: z.string(),
    }),
  ),
  transfers: z.array(
    z.object({
      id: z.string().min(1),
      reference: z.string(),
      kind: z.enum(['TRANSFER', 'RETURN']),
      status: z.enum(['COMPLETED', 'FAILED']),
      amountCents: z.number().int(),
      endToEndId: z.string().nullable(),
      returnOf: z.string().nullable(),
      createdAt: z.string(),
    }),
  ),
}) satisfies z.ZodType<ProviderStatement>;

export const providerInfractionSchema = z.object({
  id: z.string().min(1),
  endToEndId: z.string().min(1),
  reference: z.string().nullable(),
  amountCents: z.number().int().positive(),
  reason: z.string(),
  // REJECTED before the PSP decided cases meant "answered REJECT"; the gateway only reads OPEN and the final ones.
  status: z.enum(['OPEN', 'IN_DEFENCE', 'ACCEPTED', 'REJECTED', 'CANCELLED']),
  openedAt: z.string(),
  analysisDeadline: z.string(),
  decision: z.enum(['ACCEPT', 'REJECT']).nullable(),
  justification: z.string().nullable(),
  answeredAt: z.string().nullable(),
  closedAt: z.string().nullish(),
}) satisfies z.ZodType<ProviderInfraction>;

export const providerInfractionListSchema = z.object({ infractions: z.array(providerInfractionSchema) });

export const pixKeyOwnerSchema = z.object({
  key: z.string().min(1),
  keyType: z.enum(['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP']),
  owner: z.object({ name: z.string(), documentType: z.enum(['CPF', 'CNPJ']), document: z.string() }),
  bank: z.object({ ispb: z.string(), name: z.string() }),
}) satisfies z.ZodType<PixKeyOwner>;
