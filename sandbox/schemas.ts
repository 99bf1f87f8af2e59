/**
 * Request validation for the sandbox API (zod). Mirrors the types in core/provider.ts.
 * Provider API bodies drop unknown fields (a field added to the contract later must not
 * break every call); control-route bodies are strict, so a typo cannot silently do nothing.
 */
import { z } from 'zod';
import { MAX_BOLETO_AMOUNT_CENTS, isIsoDate } from '../core/boletos';
import { SandboxHttpError } from './errors';

/** 13 chars is the EMV field 54 limit ("99999999999.99" would not fit); keep well inside it. */
const MAX_AMOUNT_CENTS = 99_999_999_999;

const amountCents = z.number().int().positive().max(MAX_AMOUNT_CENTS);
const reference = z.string().trim().min(1).max(100);

export const issueChargeSchema = z.object({
  reference,
  amountCents,
  description: z.string().max(140).nullable().default(null),
  expiresAt: z.iso.datetime({ offset: true }),
  callbackUrl: z.url({ protocol: /^https?$/ }),
  // Normalised for the BR Code (field 59) by the sandbox; free text here, as a PSP takes it.
  merchantName: z.string().max(200).nullish(),
});

const isoDate = z.string().refine(isIsoDate, 'a calendar date YYYY-MM-DD');
const basisPoints = z.number().int().min(0).max(10_000);

export const issueBoletoSchema = z.object({
  reference,
  // Ten digits of amount in the barcode.
  amountCents: z.number().int().positive().max(MAX_BOLETO_AMOUNT_CENTS),
  // The factor needs a date after 1997-10-07; past dates are refused in boletos.ts (clock-dependent).
  dueDate: isoDate.refine((d) => d > '1997-10-07', 'after 1997-10-07'),
  payer: z.object({
    name: z.string().trim().min(1).max(140),
    document: z.string().regex(/^(\d{11}|\d{14})$/, 'CPF (11) or CNPJ (14) digits'),
    email: z
      .string()
      .max(254)
      .nullish()
      .transform((v) => v ?? null),
  }),
  // Absent and null mean the same; normalised so both fingerprint alike for idempotency.
  fine: z
    .object({ percentBps: basisPoints })
    .nullish()
    .transform((v) => v ?? null),
  interest: z
    .object({ monthlyBps: basisPoints })
    .nullish()
    .transform((v) => v ?? null),
  graceDays: z.number().int().min(0).max(60).default(0),
  callbackUrl: z.url({ protocol: /^https?$/ }),
  merchantName: z.string().max(200).nullish(),
});

export const closeChargeSchema = z.object({
  reason: z.enum(['EXPIRED', 'CANCELLED']),
});

export const paymentReturnSchema = z.strictObject({
  reference,
  amountCents,
  endToEndId: z
    .string()
    .regex(/^E\d{8}\d{12}[A-Za-z0-9]{11}$/, 'a Pix endToEndId (E + ISPB + yyyyMMddHHmm + 11 alphanumerics)'),
});

export const transferSchema = z.object({
  reference,
  amountCents,
  // Format is not checked per key type on purpose: the outcome rules (pixKey containing
  // "invalid" → FAILED) must be reachable whatever type the test picks.
  pixKey: z.string().trim().min(1).max(77),
  pixKeyType: z.enum(['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP']),
  recipientName: z.string().trim().min(1).max(140),
  recipientDocument: z
    .string()
    .regex(/^(\d{11}|\d{14})$/, 'CPF (11) or CNPJ (14) digits')
    .nullish()
    // Absent and null mean the same; normalise so both fingerprint alike for idempotency.
    .transform((v) => v ?? null),
});

export const payerOverrideSchema = z
  .strictObject({
    name: z.string().min(1).max(140),
    document: z.string().regex(/^(\d{11}|\d{14})$/),
    documentType: z.enum(['CPF', 'CNPJ']),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    institution: z.string().min(1),
    ispb: z.string().regex(/^\d{8}$/),
    agency: z.string().min(1),
    account: z.string().min(1),
  })
  .partial();

// callback: false pays without sending the callback (a lost callback, for reconciliation tests).
export const payBodySchema = z.strictObject({
  payer: payerOverrideSchema.optional(),
  late: z.boolean().optional(),
  callback: z.boolean().optional(),
});

export const statementAmountSchema = z.strictObject({ amountCents: z.number().int().positive() });

export const statementQuerySchema = z.strictObject({
  from: z.iso.datetime({ offset: true }),
  to: z.iso.datetime({ offset: true }),
});

export const payBoletoBodySchema = z.strictObject({
  amountCents: z.number().int().positive().max(MAX_BOLETO_AMOUNT_CENTS).optional(),
  paidAt: z.union([isoDate, z.iso.datetime({ offset: true })]).optional(),
  via: z.enum(['BOLETO', 'PIX']).optional(),
  settlement: z.enum(['D0', 'D1']).optional(),
  payer: payerOverrideSchema.optional(),
  // false: the PSP loses the payment's notice (no callback, no Efí notification), as with charges.
  callback: z.boolean().optional(),
});

/** Test control: open a Pix infraction against a paid charge (default: the whole paid amount, FRAUD). */
export const openInfractionSchema = z
  .strictObject({
    amountCents: amountCents.optional(),
    reason: z.enum(['FRAUD', 'SCAM', 'ACCOUNT_TAKEOVER', 'COERCION', 'OTHER']).optional(),
    // The analysis deadline the PSP gives, in seconds from now (at most the rule's 7 days): short
    // ones let a test reach a case's deadline, or open one with only hours left.
    deadlineSeconds: z
      .number()
      .int()
      .positive()
      .max(7 * 86_400)
      .optional(),
    // The PSP decides the case by itself this long after it opens (UPHELD and DISMISSED once it is
    // also in defence): a test sets the outcome once, with the case. Both or neither.
    decideAfterSeconds: z
      .number()
      .int()
      .min(0)
      .max(80 * 86_400)
      .optional(),
    outcome: z.enum(['UPHELD', 'DISMISSED', 'CANCELLED']).optional(),
  })
  .refine((b) => (b.decideAfterSeconds === undefined) === (b.outcome === undefined), {
    message: 'decideAfterSeconds and outcome go together',
    path: ['outcome'],
  });

/** Test control: the PSP decides a case (sandbox/infractions.ts decideInfraction). */
export const decideInfractionSchema = z.strictObject({ outcome: z.enum(['UPHELD', 'DISMISSED', 'CANCELLED']) });

export const infractionsQuerySchema = z.object({ since: z.iso.datetime({ offset: true }).optional() });

export const infractionAnalysisSchema = z.object({
  decision: z.enum(['ACCEPT', 'REJECT']),
  justification: z.string().trim().min(1).max(2000),
});

export const faultsSchema = z.strictObject({
  errorRate: z.number().min(0).max(1).optional(),
  latencyMs: z.number().int().min(0).max(120_000).optional(),
  timeoutRate: z.number().min(0).max(1).optional(),
  failFirst: z.number().int().min(0).max(10).optional(),
  dropFirst: z.number().int().min(0).max(10).optional(),
  paths: z.array(z.string().startsWith('/').max(200)).min(1).max(10).optional(),
  seed: z.number().int().min(0).max(4_294_967_295).optional(),
});

/** Parse or throw a 400 listing every issue, so a client sees all its mistakes at once. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.output<T> {
  const result = schema.safeParse(body ?? {});
  if (!result.success) {
    const message = result.error.issues
      .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
      .join('; ');
    throw new SandboxHttpError(400, 'VALIDATION_ERROR', message);
  }
  return result.data;
}

/** Control route: the directory learns who owns a key (a strict body: a typo must not register nothing). */
export const dictKeySchema = z.strictObject({
  key: z.string().trim().min(1).max(77),
  keyType: z.enum(['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP']),
  ownerName: z.string().trim().min(1).max(140),
  ownerDocument: z.string().regex(/^(\d{11}|\d{14})$/, 'CPF (11) or CNPJ (14) digits'),
  ispb: z
    .string()
    .regex(/^\d{8}$/)
    .optional(),
  bankName: z.string().trim().min(1).max(100).optional(),
});
