/**
 * GET /receipts/verify: the query and both answers. The code is not validated into a 400: any
 * value, missing, repeated or malformed, is simply not an authentic receipt (no hint why).
 */
import { z } from 'zod';
import { MONEY_RECEIPT_KINDS } from '../../core/receipts/facts';

export const verifyQuery = z.object({
  code: z.string().optional().describe('The code from the receipt’s QR code (base64url, about 106 characters).'),
});

const maskedParty = z
  .object({
    name: z.string(),
    document: z.string().nullable().describe('CPF masked as `***.456.789-**`; a CNPJ is shown in full.'),
  })
  .nullable();

export const authenticReceipt = z.object({
  authentic: z.literal(true),
  kind: z.enum(MONEY_RECEIPT_KINDS as [string, ...string[]]),
  amountCents: z.int(),
  occurredAt: z.iso.datetime(),
  endToEndId: z.string().nullable(),
  payer: maskedParty,
  receiver: maskedParty,
  refunds: z
    .array(z.object({ amountCents: z.int(), at: z.iso.datetime() }))
    .describe('Settled refunds of a charge (empty otherwise).'),
});

/**
 * A course certificate carries a code of the same format. Authentic: we issued it and
 * its facts are unchanged. Valid: authentic and its enrolment is still ACTIVE (a full refund
 * revokes the enrolment, and the certificate with it).
 */
export const authenticCertificate = z.object({
  authentic: z.literal(true),
  kind: z.literal('CERTIFICATE'),
  valid: z.boolean().describe('false when the enrolment was revoked (its charge was refunded).'),
  status: z.enum(['VALID', 'REVOKED']),
  revokedAt: z.iso.datetime().nullable(),
  certificateId: z.uuid(),
  student: maskedParty.unwrap().extend({ name: z.string().nullable() }),
  courseTitle: z.string(),
  merchantName: z.string(),
  issuedAt: z.iso.datetime(),
});

export const notAuthentic = z.object({ authentic: z.literal(false) });

export const receiptVerification = z.union([authenticReceipt, authenticCertificate, notAuthentic]);
export type ReceiptVerification = z.infer<typeof receiptVerification>;
