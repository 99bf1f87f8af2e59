/** Bodies, queries and answers of /courses (application API); the same schemas validate and document. */
import { z } from 'zod';
import { COURSE_ACCESS_TYPES, COURSE_PRICE_TYPES, COURSE_STATUSES } from '../../../db/marketplace';
import { SUBSCRIPTION_INTERVALS } from '../../../core/subscriptions/calendar';
import type { RetryPolicy } from '../../../core/subscriptions/retries';
import { MAX_CHARGE_AMOUNT_CENTS } from '../../charges/sellers/schema';
import { httpUrl } from '../../validation/text';

/** Orders of modules and lessons: any integer from 0 (the column is a 32-bit INTEGER). */
export const MAX_ORDER = 1_000_000;
/** A price is at most what one charge may be (a checkout is backed by one charge). */
export const MAX_PRICE_CENTS = MAX_CHARGE_AMOUNT_CENTS;
/** A SUBSCRIPTION price's period and retry policy (migration 0045's CHECKs). */
export const COURSE_PRICE_INTERVALS = SUBSCRIPTION_INTERVALS;
export const COURSE_PRICE_RETRY_POLICIES = ['NAO_PERMITE', 'PERMITE_3R_7D'] as const satisfies readonly RetryPolicy[];

// One pattern (so the OpenAPI document states it): no control characters and at least one
// character that is not a space; the value is then trimmed.
// eslint-disable-next-line no-control-regex
const NOT_BLANK = /^[^\u0000-\u001F\u007F-\u009F]*[^ \u0000-\u001F\u007F-\u00A0][^\u0000-\u001F\u007F-\u009F]*$/;
const title = () =>
  z.string().min(1).max(200).regex(NOT_BLANK, 'must not be blank nor contain control characters').trim();
// A description may have lines and tabs; other control characters are refused as everywhere.
// eslint-disable-next-line no-control-regex
const MULTILINE = /^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]*$/;
const description = () =>
  z.string().max(5_000).regex(MULTILINE, 'must not contain control characters other than tab and line breaks');
const url = () => httpUrl().max(2_048);
const order = () =>
  z
    .number()
    .int()
    .min(0)
    .max(MAX_ORDER)
    .meta({ description: 'Position among its siblings, ascending; equal orders read in creation order.' });

export const courseIdParam = z.uuid();
export const childIdParam = z.uuid();

export const createCourseBody = z.strictObject({
  merchantId: z.uuid(),
  title: title(),
  description: description().default(''),
  thumbnailUrl: url().nullable().optional(),
  accessType: z.enum(COURSE_ACCESS_TYPES),
});
export type CreateCourseBody = z.output<typeof createCourseBody>;

export const updateCourseBody = z.strictObject({
  title: title().optional(),
  description: description().optional(),
  thumbnailUrl: url().nullable().optional().meta({ description: 'null removes it.' }),
  accessType: z.enum(COURSE_ACCESS_TYPES).optional(),
});
export type UpdateCourseBody = z.output<typeof updateCourseBody>;

export const listCoursesQuery = z.strictObject({
  merchantId: z.uuid().optional().meta({ description: 'Default: the merchant you own (or first belong to).' }),
  status: z.enum(COURSE_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export type ListCoursesQuery = z.output<typeof listCoursesQuery>;

export const createPriceBody = z
  .strictObject({
    amountCents: z.number().int().min(1).max(MAX_PRICE_CENTS),
    type: z.enum(COURSE_PRICE_TYPES).meta({
      description:
        'ONE_TIME sells through checkouts; SUBSCRIPTION through subscriptions (POST /subscriptions, Pix Automático); ' +
        'MULTIPLE_PAYMENTS is stored and refused everywhere (422 COURSE_PRICE_TYPE_NOT_ENABLED_YET).',
    }),
    active: z.boolean().default(true),
    interval: z.enum(COURSE_PRICE_INTERVALS).optional().meta({
      description:
        'SUBSCRIPTION prices only (default MONTHLY): the period each cycle covers. Sent on another type → 400.',
    }),
    retryPolicy: z.enum(COURSE_PRICE_RETRY_POLICIES).optional().meta({
      description:
        'SUBSCRIPTION prices only (default PERMITE_3R_7D: up to 3 retries within 7 days of a failed cycle; NAO_PERMITE: none). Sent on another type → 400.',
    }),
  })
  .superRefine((body, ctx) => {
    if (body.type === 'SUBSCRIPTION') return;
    for (const field of ['interval', 'retryPolicy'] as const)
      if (body[field] !== undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: `only a SUBSCRIPTION price has ${field}` });
  });
export type CreatePriceBody = z.output<typeof createPriceBody>;

export const updatePriceBody = z.strictObject({
  active: z.boolean().optional(),
  amountCents: z.number().int().min(1).max(MAX_PRICE_CENTS).optional().meta({
    description: 'Applies to checkouts created afterwards; existing checkouts keep the amount they were created with.',
  }),
});
export type UpdatePriceBody = z.output<typeof updatePriceBody>;

export const createModuleBody = z.strictObject({ title: title(), order: order() });
export type CreateModuleBody = z.output<typeof createModuleBody>;
export const updateModuleBody = z.strictObject({ title: title().optional(), order: order().optional() });
export type UpdateModuleBody = z.output<typeof updateModuleBody>;

export const createLessonBody = z.strictObject({
  title: title(),
  order: order(),
  contentUrl: url().nullable().optional(),
});
export type CreateLessonBody = z.output<typeof createLessonBody>;
export const updateLessonBody = z.strictObject({
  title: title().optional(),
  order: order().optional(),
  contentUrl: url().nullable().optional().meta({ description: 'null removes it.' }),
});
export type UpdateLessonBody = z.output<typeof updateLessonBody>;

// --- answers --------------------------------------------------------------------------------

export const courseView = z.object({
  id: z.uuid(),
  merchantId: z.uuid(),
  title: z.string(),
  description: z.string(),
  thumbnailUrl: z.string().nullable(),
  status: z
    .enum(COURSE_STATUSES)
    .describe('DRAFT → PUBLISHED → ARCHIVED (DRAFT → ARCHIVED too). Only PUBLISHED courses sell.'),
  accessType: z.enum(COURSE_ACCESS_TYPES),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export const priceView = z.object({
  id: z.uuid(),
  courseId: z.uuid(),
  amountCents: z.number().int(),
  type: z.enum(COURSE_PRICE_TYPES),
  active: z.boolean(),
  interval: z.enum(COURSE_PRICE_INTERVALS).nullable().describe('SUBSCRIPTION prices: the period; null otherwise.'),
  retryPolicy: z
    .enum(COURSE_PRICE_RETRY_POLICIES)
    .nullable()
    .describe('SUBSCRIPTION prices: the retry policy; null otherwise.'),
});

export const lessonView = z.object({
  id: z.uuid(),
  courseId: z.uuid(),
  moduleId: z.uuid(),
  title: z.string(),
  order: z.number().int(),
  contentUrl: z.string().nullable(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export const moduleView = z.object({
  id: z.uuid(),
  courseId: z.uuid(),
  title: z.string(),
  order: z.number().int(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});
export const moduleWithLessonsView = moduleView.extend({ lessons: z.array(lessonView).describe('In order.') });
