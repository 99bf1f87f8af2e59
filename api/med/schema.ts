/** Bodies, queries and answers of /med/infractions (application API); the same schemas validate and document. */
import { z } from 'zod';
import { EVIDENCE_TYPES } from '../../core/storage/evidenceType';
import { text } from '../validation/text';

/** At most this many infractions in one POST /med/infractions/analysis. */
export const MAX_ANALYSIS_ITEMS = 100;
export const MAX_JUSTIFICATION_CHARS = 2000;

export const infractionIdParam = z.uuid();

/**
 * A case's status: OPEN (unanswered), IN_DEFENCE (the merchant's defence is at the PSP, which
 * decides: holds and debts stay), ACCEPTED (the devolução: accepted by the merchant, or the claim
 * upheld by the PSP), REJECTED (released: the PSP dismissed the claim), CANCELLED (the PSP
 * cancelled the case: released).
 */
export const INFRACTION_STATUSES = ['OPEN', 'IN_DEFENCE', 'ACCEPTED', 'REJECTED', 'CANCELLED'] as const;

export const listInfractionsQuery = z.strictObject({
  merchantId: z.uuid().optional().meta({ description: 'Default: the merchant you own (or first belong to).' }),
  status: z.enum(INFRACTION_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export type ListInfractionsQuery = z.output<typeof listInfractionsQuery>;

export const syncInfractionsBody = z.strictObject({
  merchantId: z.uuid().optional().meta({
    description:
      'The merchant whose new infractions are answered (default: the one you own or first belong to). The pull itself covers every infraction the provider has.',
  }),
});
export type SyncInfractionsBody = z.output<typeof syncInfractionsBody>;

const decision = z.enum(['ACCEPT', 'REJECT']).meta({
  description:
    'ACCEPT: the disputed amount is returned to the payer (a Pix devolução through the refund flow). REJECT: the justification goes to the provider and the block is released.',
});
// No control characters: it goes to the provider and on to the central bank.
const justification = text()
  .trim()
  .min(1)
  .max(MAX_JUSTIFICATION_CHARS)
  .meta({
    description: `Sent to the provider (and on to the central bank); 1 to ${MAX_JUSTIFICATION_CHARS} characters.`,
  });

export const analysisBody = z.strictObject({ decision, justification });
export type AnalysisBody = z.output<typeof analysisBody>;

export const bulkAnalysisBody = z.strictObject({
  items: z
    .array(z.strictObject({ id: z.uuid(), decision, justification }))
    .min(1)
    .max(MAX_ANALYSIS_ITEMS)
    .refine((items) => new Set(items.map((i) => i.id)).size === items.length, 'each infraction at most once'),
});
export type BulkAnalysisBody = z.output<typeof bulkAnalysisBody>;

// --- answers --------------------------------------------------------------------------------

export const infractionView = z.object({
  id: z.uuid(),
  providerInfractionId: z.string(),
  merchantId: z.uuid(),
  chargeId: z.uuid(),
  endToEndId: z.string().describe('The disputed Pix payment.'),
  disputedAmountCents: z.number().int(),
  blockedAmountCents: z
    .number()
    .int()
    .describe(
      'What was moved from available to blocked when the infraction was opened: the disputed amount, or less when the available balance did not cover it (never negative).',
    ),
  reason: z.string().describe('As the provider reports it, e.g. FRAUD.'),
  status: z.enum(INFRACTION_STATUSES),
  decision: z.enum(['ACCEPT', 'REJECT']).nullable(),
  justification: z.string().nullable(),
  decidedBy: z
    .string()
    .nullable()
    .describe(
      "The deciding user's id, or DEFAULT when the deadline passed unanswered (the default decision is ACCEPT).",
    ),
  decidedAt: z.iso.datetime().nullable(),
  openedAt: z.iso.datetime(),
  deadlineAt: z.iso.datetime().describe('Answer by then, or the default decision (ACCEPT) is applied.'),
  refundId: z.uuid().nullable().describe('ACCEPTED: the devolução (a refund of the charge).'),
  refundAmountCents: z
    .number()
    .int()
    .nullable()
    .describe(
      'ACCEPTED: what the devolução returns: the disputed amount, or what was left to return of the payment after earlier refunds.',
    ),
  refundStatus: z
    .string()
    .nullable()
    .describe(
      'PROCESSING, SUCCEEDED, FAILED or REFUSED, or NOTHING_TO_RETURN (earlier refunds returned the whole payment). Not SUCCEEDED: the disputed money went back to available.',
    ),
  parties: z
    .array(
      z.object({
        merchantId: z.uuid(),
        shareCents: z
          .number()
          .int()
          .describe('Its share of the claim, in proportion to what it received from the charge.'),
        heldCents: z
          .number()
          .int()
          .describe('Blocked when the claim opened and recovered from its later credits since (its blocked money).'),
        owedCents: z
          .number()
          .int()
          .describe('What its balance did not cover and no credit has recovered yet (its debt).'),
      }),
    )
    .describe(
      'Who the claim reaches (the charge owner first, then its split partners) and what each holds and owes; [] for a claim on a charge received on a connection (its PSP blocks the account) or blocked before MED 2.0.',
    ),
  pspOutcome: z
    .enum(['UPHELD', 'DISMISSED', 'CANCELLED'])
    .nullable()
    .describe(
      "What the PSP decided (MED 2.0: the receiving PSP decides a defended case): UPHELD (status ACCEPTED: the devolução), DISMISSED (REJECTED: the defence won, everything released), CANCELLED (CANCELLED: released). Null until then, and for a case the merchant's ACCEPT closed.",
    ),
  pspDecidedAt: z.iso.datetime().nullable().describe('When the gateway recorded the PSP’s outcome.'),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

/**
 * An infraction as GET /med/infractions and GET /med/infractions/{id} show it to one merchant: the
 * charge's owner (every party's part) or a split partner the claim reached (its own part only).
 */
export const infractionReadView = infractionView.extend({
  viewer: z
    .object({
      merchantId: z.uuid().describe('The merchant you read the case as.'),
      role: z
        .enum(['OWNER', 'PARTNER'])
        .describe(
          'OWNER: the charge is this merchant’s; it answers the case (analysis, evidence, defence). PARTNER: a split partner the claim reached; it reads the case and its timeline and cannot act on it (403 INFRACTION_OWNER_ONLY).',
        ),
      shareCents: z
        .number()
        .int()
        .nullable()
        .describe('Its share of the claim; null for a case held by the owner’s account alone (`parties` is []).'),
      heldCents: z.number().int().describe('Its money the case holds: blocked at once and recovered since.'),
      owedCents: z.number().int().describe('What it still owes for the case (its balance did not cover it).'),
    })
    .describe(
      'This merchant’s part of the case. A partner sees only its own part: `parties` has its entry alone, `blockedAmountCents` is its hold, and a user’s decision shows `decidedBy: CHARGE_OWNER`.',
    ),
});

export const analysisResult = z.object({
  id: z.string(),
  status: z.number().int().describe('The HTTP status this item would have had alone: 200, 403, 404 or 409.'),
  infraction: infractionView.optional(),
  error: z.object({ code: z.string(), message: z.string() }).optional(),
});

// --- defence and timeline (issue 38) --------------------------------------------------------

/** The evidence files a defence may carry, each at most EVIDENCE_MAX_BYTES (10 MiB). */
export const MAX_EVIDENCE_FILES = 5;
export const EVIDENCE_MAX_BYTES = 10_485_760;
/** How long a presigned evidence upload URL stays valid. */
export const EVIDENCE_UPLOAD_TTL_SECONDS = 600;

export const evidenceUploadBody = z.strictObject({
  contentType: z.enum(EVIDENCE_TYPES).meta({
    description:
      'The type of the file you will upload: a PDF, PNG or JPEG. The defence checks the uploaded bytes, not this.',
    example: 'application/pdf',
  }),
});
export type EvidenceUploadBody = z.output<typeof evidenceUploadBody>;

export const evidenceUploadResult = z.object({
  uploadUrl: z.string().describe('PUT the file here, with `headers`, before `expiresAt`.'),
  key: z.string().describe('`med-evidence/<infraction id>/<uuid>`: list it in the defence’s evidenceKeys.'),
  method: z.literal('PUT'),
  headers: z.record(z.string(), z.string()).describe('Send exactly these headers with the PUT.'),
  expiresAt: z.iso.datetime(),
  maxBytes: z.literal(EVIDENCE_MAX_BYTES),
});

export const EVIDENCE_KEY = /^med-evidence\/[0-9a-f-]{36}\/[0-9a-f-]{36}$/;

export const defenceBody = z.strictObject({
  text: justification.meta({
    description: `Your defence: sent to the provider as the justification of a REJECT (Efí: \`justificativa\`, text only); 1 to ${MAX_JUSTIFICATION_CHARS} characters.`,
  }),
  evidenceKeys: z
    .array(z.string().regex(EVIDENCE_KEY, 'must be a key from POST /med/infractions/{id}/evidence'))
    .max(MAX_EVIDENCE_FILES)
    .refine((keys) => new Set(keys).size === keys.length, 'each key at most once')
    .default([])
    .meta({ description: `0 to ${MAX_EVIDENCE_FILES} uploaded evidence files of this infraction.` }),
});
export type DefenceBody = z.output<typeof defenceBody>;

export const evidenceView = z.object({
  id: z.uuid(),
  contentType: z.enum(EVIDENCE_TYPES).describe('As read from the file’s bytes.'),
  sizeBytes: z.number().int(),
  uploadedAt: z.iso.datetime(),
});

export const defenceView = z.object({
  text: z.string(),
  submittedBy: z
    .uuid()
    .nullable()
    .describe("The user who submitted it; null when a split partner reads the case (the charge owner's user)."),
  submittedAt: z.iso.datetime(),
  evidence: z.array(evidenceView),
});

export const TIMELINE_STEPS = [
  'OPENED',
  'BLOCKED',
  'ALERT_SENT',
  'DEFENCE_SUBMITTED',
  'DECIDED',
  'IN_DEFENCE',
  'PSP_DECIDED',
  'DEVOLUCAO',
] as const;

export const timelineStep = z.object({
  step: z.enum(TIMELINE_STEPS),
  at: z.iso.datetime(),
  hoursLeft: z.number().int().optional().describe('ALERT_SENT: the alert’s lead before the deadline (48, 24 or 6).'),
  amountCents: z.number().int().optional().describe('BLOCKED: what was blocked; DEVOLUCAO: what it returns.'),
  decision: z.enum(['ACCEPT', 'REJECT']).optional().describe('DECIDED.'),
  decidedBy: z
    .string()
    .optional()
    .describe('DECIDED: a user id, or DEFAULT (answered for the merchant at the deadline).'),
  evidenceFiles: z.number().int().optional().describe('DEFENCE_SUBMITTED.'),
  outcome: z
    .enum(['UPHELD', 'DISMISSED', 'CANCELLED'])
    .optional()
    .describe('PSP_DECIDED: what the PSP decided of the defended (or open) case.'),
  status: z.string().optional().describe('DEVOLUCAO: the refund’s status.'),
});

export const timelineView = z.object({
  infractionId: z.uuid(),
  status: z.enum(INFRACTION_STATUSES),
  deadlineAt: z.iso.datetime(),
  steps: z.array(timelineStep).describe('Oldest first.'),
  defence: defenceView.nullable(),
});
export type TimelineView = z.output<typeof timelineView>;
