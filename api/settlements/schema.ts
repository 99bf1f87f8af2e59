/** Bodies, queries and answers of /settlements (application API); the same schemas validate and document. */
import { z } from 'zod';
import { PIX_KEY_TYPES } from '../../core/pixKeys';

export const SETTLEMENT_STATUSES = ['PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export const SETTLEMENT_FREQUENCIES = ['D0', 'D1', 'WEEKLY'] as const;
export type SettlementFrequency = (typeof SETTLEMENT_FREQUENCIES)[number];

/** The largest amount one request names (R$ 10 million): beyond it is a typo, not a settlement. */
const MAX_CENTS = 1_000_000_000;

export const createSettlementBody = z.strictObject({
  merchantId: z.uuid().meta({
    description: 'The merchant whose available balance is settled (you must be its owner, admin or finance).',
  }),
  amountCents: z.number().int().min(1).max(MAX_CENTS).optional().meta({
    description:
      'Amount sent to the merchant’s Pix key, in cents; the withdrawal fee is debited on top. Omitted: everything available minus the fee.',
  }),
});
export type CreateSettlementBody = z.output<typeof createSettlementBody>;

export const listSettlementsQuery = z.strictObject({
  merchantId: z.uuid().optional().meta({ description: 'Default: the merchant you own (or first belong to).' }),
  status: z.enum(SETTLEMENT_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export type ListSettlementsQuery = z.output<typeof listSettlementsQuery>;

export const settlementIdParam = z.uuid();

export const scheduleQuery = z.strictObject({ merchantId: z.uuid() });

export const putScheduleBody = z.strictObject({
  merchantId: z.uuid(),
  frequency: z.enum(SETTLEMENT_FREQUENCIES).meta({
    description:
      'D0: every day at 23:00 (America/Sao_Paulo), everything available. D1: every day at 06:00, what was available at the end of the previous day. WEEKLY: Mondays at 06:00, like D1.',
  }),
  minimumAmountCents: z
    .number()
    .int()
    .min(0)
    .max(MAX_CENTS)
    .meta({ description: 'A run whose amount (after the fee) is below this settles nothing.' }),
  paused: z.boolean().optional().meta({
    description:
      'Pause or resume the schedule (the same as pausing it in the Temporal Web UI). Omitted: unchanged (new schedules start running).',
  }),
});
export type PutScheduleBody = z.output<typeof putScheduleBody>;

// --- answers --------------------------------------------------------------------------------

export const settlementView = z.object({
  id: z.uuid(),
  merchantId: z.uuid(),
  withdrawalId: z.uuid().describe('The withdrawal that moves the money (also listed under /sellers/saques).'),
  trigger: z.enum(['ON_DEMAND', 'SCHEDULED']),
  requestedBy: z.uuid().nullable().describe('The user who asked (ON_DEMAND); null for the schedule.'),
  scheduleFrequency: z.enum(SETTLEMENT_FREQUENCIES).nullable(),
  status: z.enum(SETTLEMENT_STATUSES),
  amountCents: z.number().int(),
  feeCents: z.number().int(),
  totalDebitedCents: z.number().int(),
  destination: z
    .object({
      type: z.literal('PIX'),
      pixKeyType: z.enum(PIX_KEY_TYPES as [string, ...string[]]),
      pixKeyMasked: z.string(),
    })
    .nullable(),
  providerTransferId: z
    .string()
    .nullable()
    .describe('Our public reference of the provider’s transfer (ptr_…), as on the withdrawal.'),
  endToEndId: z.string().nullable(),
  failure: z.object({ code: z.string(), reason: z.string() }).nullable(),
  createdAt: z.iso.datetime(),
  processedAt: z.iso.datetime().nullable(),
});
export type SettlementView = z.infer<typeof settlementView>;

export const scheduleView = z.object({
  merchantId: z.uuid(),
  scheduleId: z
    .string()
    .describe('The Temporal Schedule’s id (settlement-<merchantId>), visible and pausable in the Web UI.'),
  frequency: z.enum(SETTLEMENT_FREQUENCIES),
  minimumAmountCents: z.number().int(),
  paused: z.boolean().describe('Read from the Temporal Schedule: a pause made in the Web UI shows here.'),
  timezone: z.literal('America/Sao_Paulo'),
  nextRunAt: z.iso.datetime().nullable(),
  updatedAt: z.iso.datetime(),
});
export type ScheduleView = z.infer<typeof scheduleView>;
