/**
 * Bodies, queries and answers of /subscriptions (application API) and /v1/subscriptions
 * (partners); the same schemas validate and document (openapi.ts). What needs the price or today's
 * date (the price's checks, firstDueDate's bounds) is the service's; what the body alone says is here.
 */
import { z } from 'zod';
import { isValidCnpj, isValidCpf, onlyDigits } from '../../core/documents';
import { SUBSCRIPTION_INTERVALS } from '../../core/subscriptions/calendar';
import { ENROLMENT_ACCESS, SUBSCRIPTION_STATES } from '../../core/subscriptions/states';
import { COURSE_PRICE_RETRY_POLICIES as RETRY_POLICIES } from '../marketplace/courses/schema';
import { metadata } from '../validation/metadata';
import { httpUrl, text } from '../validation/text';

export const SUBSCRIPTION_JOURNEYS = ['JOURNEY_1', 'JOURNEY_2', 'JOURNEY_3'] as const;
export const CYCLE_STATUSES = ['ISSUED', 'RETRYING', 'PAID', 'FAILED', 'CANCELLED'] as const;

const document = () =>
  z
    .string()
    .regex(/^[0-9./ -]{11,18}$/, 'a CPF or CNPJ: digits, optionally with . / - separators')
    .refine((v) => isValidCpf(v) || isValidCnpj(v), 'not a valid CPF or CNPJ (check digits)')
    .transform(onlyDigits)
    .meta({ example: '529.982.247-25' });

const subscriptionFields = {
  priceId: z
    .uuid()
    .describe('A SUBSCRIPTION price of one of your PUBLISHED courses: its amount, period and retry policy.'),
  journey: z
    .enum(SUBSCRIPTION_JOURNEYS)
    .default('JOURNEY_3')
    .meta({
      description:
        'How the payer authorises: JOURNEY_1 a request to their PSP (needs `payerAccount`); JOURNEY_2 a QR that only ' +
        'authorises; JOURNEY_3 (default) a QR whose payment (the first cycle, due today) authorises.',
    }),
  payer: z.strictObject({
    name: text().trim().min(2).max(140),
    document: document().describe('CPF or CNPJ (check digits verified).'),
  }),
  payerAccount: z
    .strictObject({
      ispb: z
        .string()
        .regex(/^\d{8}$/, '8 digits')
        .describe("The payer's PSP (ISPB)."),
      branch: z
        .string()
        .regex(/^\d{1,4}$/, '1 to 4 digits')
        .optional(),
      account: z.string().regex(/^\d{1,20}$/, '1 to 20 digits'),
    })
    .optional()
    .describe('JOURNEY_1 only, and required there: where the authorisation request is sent.'),
  firstDueDate: z.iso
    .date()
    .optional()
    .meta({
      description:
        'JOURNEYS 1 and 2: cycle 1’s due date (Brasília), at least 3 business days from today, at most a year; default ' +
        'today + 10 days. JOURNEY_3: the first cycle is due today (omit it, or send today).',
    }),
  externalId: text().min(1).max(128).optional().describe('Your id for this subscription.'),
  metadata: metadata().default({}),
  returnUrl: httpUrl().max(2048).optional().describe('Where the hosted page links back to (https only in production).'),
};

/** The journey's rules the body alone decides: payerAccount with journey 1, and only there. */
function journeyRules(body: { journey: string; payerAccount?: unknown }, ctx: z.RefinementCtx): void {
  if (body.journey === 'JOURNEY_1' && body.payerAccount === undefined)
    ctx.addIssue({ code: 'custom', path: ['payerAccount'], message: 'required with JOURNEY_1' });
  if (body.journey !== 'JOURNEY_1' && body.payerAccount !== undefined)
    ctx.addIssue({ code: 'custom', path: ['payerAccount'], message: 'only JOURNEY_1 takes a payerAccount' });
}

/** POST /subscriptions: for `merchantId` (default the caller's own merchant), one the caller may charge for. */
export const createSubscriptionBody = z
  .strictObject({
    merchantId: z.uuid().optional().meta({ description: 'Default: the merchant you own (or first belong to).' }),
    ...subscriptionFields,
  })
  .superRefine(journeyRules);
export type CreateSubscriptionBody = z.output<typeof createSubscriptionBody>;

/** POST /v1/subscriptions: for the credential's merchant. */
export const createPartnerSubscriptionBody = z.strictObject(subscriptionFields).superRefine(journeyRules);
export type CreatePartnerSubscriptionBody = z.output<typeof createPartnerSubscriptionBody>;

/** What both creating routes hand the service. */
export type SubscriptionRequest = CreatePartnerSubscriptionBody;

export const subscriptionIdParam = z.uuid();

const pageFields = {
  status: z.enum(SUBSCRIPTION_STATES).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  after: z.uuid().optional().describe('The `pagination.next` of the previous page.'),
};

export const listSubscriptionsQuery = z.strictObject({
  merchantId: z.uuid().optional().meta({ description: 'Default: the merchant you own (or first belong to).' }),
  ...pageFields,
});
export type ListSubscriptionsQuery = z.output<typeof listSubscriptionsQuery>;

export const listPartnerSubscriptionsQuery = z.strictObject(pageFields);
export type ListPartnerSubscriptionsQuery = z.output<typeof listPartnerSubscriptionsQuery>;

// --- answers (core/subscriptions/view.ts presentSubscription) --------------------------------

const ACCESS_VALUES = [...new Set(Object.values(ENROLMENT_ACCESS).map((a) => a.access))] as [string, ...string[]];

export const cycleView = z.object({
  cycle: z.number().int().min(1),
  dueDate: z.iso.date(),
  settlementDate: z.iso.date().describe('The due date moved to the next business day when it is not one.'),
  status: z.enum(CYCLE_STATUSES),
  chargeId: z.uuid().describe('The Pix charge the cycle settles as (GET /charges/{id}).'),
  retries: z.number().int().min(0).max(3),
  failureReason: z.string().nullable(),
  rejectionCode: z.string().nullable(),
  paidAt: z.iso.datetime().nullable(),
});

export const subscriptionView = z.object({
  id: z.uuid(),
  merchantId: z.uuid(),
  courseId: z.uuid(),
  priceId: z.uuid(),
  status: z
    .enum(SUBSCRIPTION_STATES)
    .describe(
      'AWAITING_AUTHORISATION → AUTHORISED (journeys 1/2) | ACTIVE (a cycle paid) ⇄ PAST_DUE (retrying) → SUSPENDED ' +
        '(a cycle failed); final: CANCELLED, REFUSED (the payer said no), EXPIRED (nobody answered).',
    ),
  access: z.enum(ACCESS_VALUES).describe("The course enrolment's access in this state."),
  hasAccess: z.boolean(),
  journey: z.enum(SUBSCRIPTION_JOURNEYS),
  interval: z.enum(SUBSCRIPTION_INTERVALS),
  retryPolicy: z.enum(RETRY_POLICIES),
  amountCents: z.number().int().describe('Each cycle’s amount, cents of BRL.'),
  firstDueDate: z.iso.date(),
  lastDueDate: z.iso.date().nullable(),
  payer: z.object({ name: z.string(), document: z.string().describe('Masked.') }),
  recurrenceId: z.string().nullable().describe("The PSP's recurrence (idRec), once created."),
  url: z.string().describe('The hosted page where the payer sees the terms (and, awaiting authorisation, the QR).'),
  qrCopyPaste: z.string().nullable().describe('Journeys 2 and 3, while AWAITING_AUTHORISATION: the QR’s text.'),
  authorizationRequestId: z.string().nullable().describe('Journey 1: the request sent to the payer’s PSP.'),
  firstChargeId: z.uuid().nullable().describe('Journey 3: the Pix charge that pays cycle 1 and authorises.'),
  currentCycle: cycleView.nullable().describe('The latest cycle issued; null before the first.'),
  cancelledBy: z.enum(['PAYER', 'MERCHANT', 'PSP']).nullable(),
  endingCode: z.string().nullable(),
  externalId: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  authorisedAt: z.iso.datetime().nullable(),
  endedAt: z.iso.datetime().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export const subscriptionPagination = z.object({
  hasMore: z.boolean(),
  next: z.uuid().nullable().describe('Pass as `after` for the next page; null on the last.'),
});
