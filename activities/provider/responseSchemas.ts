/**
 * Shape checks for provider answers. A PSP bug or a proxy error page must surface as a
 * ProviderError here, not as an undefined field deep inside a workflow.
 */
import { z } from 'zod';
import type { ProviderCharge, ProviderTransfer } from '../../core/provider';

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
}) satisfies z.ZodType<ProviderTransfer>;
