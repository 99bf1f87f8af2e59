/** Queries and answers of /enrolments (application API); the same schemas validate and document. */
import { z } from 'zod';
import { ENROLMENT_STATUSES } from '../../../db/marketplace';

export const enrolmentIdParam = z.uuid();
export const lessonIdParam = z.uuid();

export const listEnrolmentsQuery = z.strictObject({
  merchantId: z.uuid().optional().meta({ description: 'Default: the merchant you own (or first belong to).' }),
  courseId: z.uuid().optional(),
  status: z.enum(ENROLMENT_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export type ListEnrolmentsQuery = z.output<typeof listEnrolmentsQuery>;

// --- answers --------------------------------------------------------------------------------

export const progressView = z.object({
  completedLessons: z.number().int(),
  totalLessons: z.number().int(),
  percentage: z
    .number()
    .int()
    .min(0)
    .max(100)
    .describe('floor(100 × completed / total); 0 for a course without lessons.'),
});

export const progressDetailView = progressView.extend({
  lessons: z
    .array(z.object({ lessonId: z.uuid(), completedAt: z.iso.datetime() }))
    .describe('The completed lessons, in the order they were completed.'),
});

export const certificateSummaryView = z.object({
  id: z.uuid(),
  issuedAt: z.iso.datetime(),
  verificationUrl: z
    .string()
    .describe(
      'The public verify page (GET /receipts/verify?code=…); each read mints a new code for the same certificate.',
    ),
});

export const enrolmentView = z.object({
  id: z.uuid(),
  merchantId: z.uuid(),
  courseId: z.uuid(),
  checkoutId: z
    .string()
    .nullable()
    .describe('The paid checkout that created it: `bill_<uuid>`; null for a subscription’s enrolment.'),
  subscriptionId: z
    .uuid()
    .nullable()
    .describe('The subscription (Pix Automático) whose payments it follows; null for a checkout’s enrolment.'),
  status: z
    .enum(ENROLMENT_STATUSES)
    .describe(
      'A checkout’s: ACTIVE when paid; REVOKED when the charge is fully refunded (partial refunds keep access). ' +
        'A subscription’s follows it: PENDING until the first cycle is paid, ACTIVE, PAST_DUE while a cycle is ' +
        'retried (access kept), SUSPENDED when a cycle failed for good, CANCELLED with the recurrence ' +
        '(docs/api/subscriptions.md). Lessons can be completed while ACTIVE or PAST_DUE.',
    ),
  student: z.object({
    name: z.string().nullable().describe('The Pix payer’s name as the provider reported it.'),
    document: z.string().nullable().describe('CPF masked as `***.456.789-**`; a CNPJ is shown in full.'),
  }),
  progress: progressView,
  certificate: certificateSummaryView
    .nullable()
    .describe('Issued once, when progress first reaches 100 %; null before (and while REVOKED).'),
  revokedAt: z.iso.datetime().nullable(),
  revokedReason: z.string().nullable().describe('REFUNDED when the charge was fully refunded.'),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export type EnrolmentView = z.infer<typeof enrolmentView>;
