/** OpenAPI for /med/infractions (router.ts), from the schemas that validate it (schema.ts). */
import { z } from 'zod';
import {
  bearerPaths,
  errorResponses,
  idempotencyHeaders,
  jsonResponse,
  Pagination,
  registry,
} from '../openapi/registry';
import {
  analysisBody,
  analysisResult,
  bulkAnalysisBody,
  defenceBody,
  defenceView,
  EVIDENCE_MAX_BYTES,
  evidenceUploadBody,
  evidenceUploadResult,
  infractionReadView,
  infractionView,
  listInfractionsQuery,
  MAX_ANALYSIS_ITEMS,
  MAX_EVIDENCE_FILES,
  syncInfractionsBody,
  timelineView,
} from './schema';

// Derived copies (.describe): the routers import schema.ts before the registry extends zod.
export const Infraction = registry.register(
  'MedInfraction',
  infractionView.describe(
    'A Pix infraction (MED): the central bank, through the provider, disputes a payment received by the merchant. On open the disputed amount is blocked ' +
      '(available → blocked; what is available when less). ACCEPT returns it to the payer (a Pix devolução through the refund flow, consuming the block); ' +
      'REJECT sends the justification to the provider as the defence: the case is IN_DEFENCE, blocked and owed money stay held, and the provider (the receiving PSP, MED 2.0) decides: ' +
      'UPHELD → ACCEPTED and the devolução as after an ACCEPT; DISMISSED → REJECTED, everything released; it may also cancel the case (CANCELLED, released) at any time before. ' +
      "Unanswered by deadlineAt: the stored defence is sent, or else the default decision ACCEPT is applied (justification 'no analysis before the deadline', decidedBy DEFAULT), as an unanswered card dispute is lost.",
  ),
);
const InfractionRead = registry.register(
  'MedInfractionRead',
  infractionReadView.describe(
    'The infraction as one merchant reads it: the charge’s owner (every party’s part), or a split partner the claim reached (MED 2.0: its own part only). `viewer` says which and its part.',
  ),
);
const InfractionList = registry.register(
  'MedInfractionList',
  z
    .object({ data: z.array(InfractionRead), pagination: Pagination })
    .describe('Newest first: the merchant’s own charges’ cases and those whose claim reached it as a split partner.'),
);
const SyncResult = registry.register(
  'MedInfractionSyncResult',
  z
    .object({ created: z.number().int(), data: z.array(Infraction) })
    .describe("The merchant's infractions this sync created."),
);
const AnalysisRequest = registry.register(
  'MedInfractionAnalysisRequest',
  analysisBody.describe('The analysis of one infraction.'),
);
const BulkAnalysisRequest = registry.register(
  'MedInfractionBulkAnalysisRequest',
  bulkAnalysisBody.describe(`1 to ${MAX_ANALYSIS_ITEMS} analyses, each infraction at most once.`),
);
const BulkAnalysisResult = registry.register(
  'MedInfractionBulkAnalysisResult',
  z.object({ results: z.array(analysisResult) }).describe('One result per item, in request order.'),
);

const bearerErrors = ['AUTHENTICATION_REQUIRED', 'INVALID_ACCESS_TOKEN', 'RATE_LIMITED'] as const;
const READ =
  'Every member of the charge owner’s merchant, and of a split partner the claim reached (MED 2.0: `parties`), which sees its own part.';
const DECIDE =
  'Owner, admin and finance of the charge owner’s merchant (others → 403 INSUFFICIENT_ROLE); a split partner reads the case but cannot act on it → 403 INFRACTION_OWNER_ONLY.';
const TWO_FACTOR =
  'ACCEPT sends money back: a user with a second factor sends x-action-token (action "refund", from /auth/2fa/action/confirm), else 403 SECOND_FACTOR_REQUIRED.';
const idParam = z.object({ id: z.uuid().openapi({ description: 'Infraction id (ours).' }) });

const path = bearerPaths('Pix infractions (MED)');

path('get', '/med/infractions', 'listMedInfractions', 'List a merchant’s Pix infractions', {
  description: `${READ} Lists the merchant’s own charges’ cases and those whose claim reached it as a split partner (viewer.role PARTNER). A merchant you do not belong to → 404 MERCHANT_NOT_FOUND.`,
  request: { query: listInfractionsQuery },
  responses: {
    200: jsonResponse('A page of infractions.', InfractionList),
    ...errorResponses('VALIDATION_ERROR', 'MERCHANT_NOT_FOUND', 'INSUFFICIENT_ROLE', ...bearerErrors),
  },
});

path('post', '/med/infractions/sync', 'syncMedInfractions', 'Pull new Pix infractions from the provider', {
  description:
    'Pulls the infractions of every PSP account (the platform’s and each connected merchant’s own; the schedule med-infraction-sync does the same every 15 minutes), ' +
    'stores the new ones (once each, matched to our charge by endToEndId, and kept only when that charge was received at the account that listed it) ' +
    'and starts one workflow each, which blocks the disputed amount. Answers the merchant’s infractions this call created; ' +
    '503 SERVICE_UNAVAILABLE when the merchant’s own connection could not be read this time. ' +
    'Owner, admin and finance (others → 403 INSUFFICIENT_ROLE). A merchant you do not belong to → 404 MERCHANT_NOT_FOUND.',
  request: { body: { content: { 'application/json': { schema: syncInfractionsBody } } } },
  responses: {
    200: jsonResponse(
      'Synced.',
      SyncResult,
      {},
      // The first infraction this sync created (none created: nothing to follow).
      { getMedInfraction: { id: '$response.body#/data/0/id' } },
    ),
    ...errorResponses(
      'VALIDATION_ERROR',
      'MERCHANT_NOT_FOUND',
      'INSUFFICIENT_ROLE',
      'SERVICE_UNAVAILABLE',
      ...bearerErrors,
    ),
  },
});

path('post', '/med/infractions/analysis', 'analyseMedInfractions', 'Decide several Pix infractions at once', {
  description:
    `Every item is checked first (found, your role, still OPEN); then each is applied as POST /med/infractions/{id}/analysis would. Always 200 with per-item results (status 200, 403, 404 or 409 and the error envelope's code and message). ` +
    `${DECIDE} ${TWO_FACTOR} One action token covers the request.`,
  request: { body: { content: { 'application/json': { schema: BulkAnalysisRequest } } } },
  responses: {
    200: jsonResponse('Per-item results.', BulkAnalysisResult),
    ...errorResponses('VALIDATION_ERROR', 'SECOND_FACTOR_REQUIRED', ...bearerErrors),
  },
});

path('get', '/med/infractions/{id}', 'getMedInfraction', 'Read a Pix infraction', {
  description: `${READ} A merchant neither the charge’s owner nor a party of the claim → 404 INFRACTION_NOT_FOUND.`,
  request: { params: idParam },
  responses: {
    200: jsonResponse('The infraction.', InfractionRead),
    ...errorResponses('VALIDATION_ERROR', 'INFRACTION_NOT_FOUND', 'INSUFFICIENT_ROLE', ...bearerErrors),
  },
});

path('post', '/med/infractions/{id}/analysis', 'analyseMedInfraction', 'Decide a Pix infraction: ACCEPT or REJECT', {
  description:
    'Answers once the decision is recorded: REJECT → the justification was sent to the provider as the defence (status IN_DEFENCE: the block stays until the provider decides: pspOutcome UPHELD → ACCEPTED with the devolução, DISMISSED → REJECTED and released); ' +
    'ACCEPT → the provider was told, status ACCEPTED, and the devolução of the disputed amount runs through the refund flow (refundId, refundStatus PROCESSING then SUCCEEDED; ' +
    'the block is consumed by the refund’s reservation; a devolução that fails or is refused gives the money back to available, refundStatus FAILED/REFUSED). ' +
    'An optional x-idempotency-key makes a retry answer what the first request did (header idempotent-replayed) instead of 409; the same key with another body → 409 DUPLICATE_IDEMPOTENCY_KEY. ' +
    `Already decided (by someone, or by default at the deadline) → 409 INFRACTION_ALREADY_DECIDED, nothing changes. ${DECIDE} ${TWO_FACTOR} A merchant neither the charge’s owner nor a party of the claim → 404 INFRACTION_NOT_FOUND.`,
  request: {
    params: idParam,
    headers: idempotencyHeaders,
    body: { content: { 'application/json': { schema: AnalysisRequest } } },
  },
  responses: {
    200: jsonResponse('The decided infraction.', Infraction),
    ...errorResponses(
      'VALIDATION_ERROR',
      'INFRACTION_NOT_FOUND',
      'INSUFFICIENT_ROLE',
      'INFRACTION_OWNER_ONLY',
      'INFRACTION_ALREADY_DECIDED',
      'DUPLICATE_IDEMPOTENCY_KEY',
      'SECOND_FACTOR_REQUIRED',
      'SERVICE_UNAVAILABLE',
      ...bearerErrors,
    ),
  },
});

const EvidenceUploadRequest = registry.register(
  'MedEvidenceUploadRequest',
  evidenceUploadBody.describe('The file you will upload as evidence of a defence.'),
);
const EvidenceUpload = registry.register(
  'MedEvidenceUpload',
  evidenceUploadResult.describe(
    'Where to PUT one evidence file (presigned; the bytes never pass through the API’s JSON routes).',
  ),
);
const DefenceRequest = registry.register(
  'MedDefenceRequest',
  defenceBody.describe('Your defence: its text and the evidence files you uploaded for it.'),
);
const Defence = registry.register(
  'MedDefence',
  defenceView.describe(
    'The stored defence. Its text went to the provider as the justification of a REJECT; the provider takes text only (Efí), so the files are kept here as evidence.',
  ),
);
const DefenceResult = registry.register(
  'MedDefenceResult',
  z
    .object({ infraction: Infraction, defence: Defence })
    .describe('The infraction, decided REJECT, and the stored defence.'),
);
const Timeline = registry.register(
  'MedInfractionTimeline',
  timelineView.describe(
    'The case’s steps with their times, from stored records: OPENED (at the provider), BLOCKED, ALERT_SENT (48, 24, 6 h before deadlineAt), DEFENCE_SUBMITTED, DECIDED (the answer reached the provider first), IN_DEFENCE (a REJECT: the provider decides), PSP_DECIDED (the provider’s outcome: UPHELD, DISMISSED or CANCELLED), DEVOLUCAO.',
  ),
);

path('get', '/med/infractions/{id}/timeline', 'getMedInfractionTimeline', 'A Pix infraction’s timeline', {
  description: `${READ} A merchant neither the charge’s owner nor a party of the claim → 404 INFRACTION_NOT_FOUND.`,
  request: { params: idParam },
  responses: {
    200: jsonResponse('The timeline.', Timeline),
    ...errorResponses('VALIDATION_ERROR', 'INFRACTION_NOT_FOUND', 'INSUFFICIENT_ROLE', ...bearerErrors),
  },
});

path('post', '/med/infractions/{id}/evidence', 'uploadMedEvidence', 'Get an upload URL for one evidence file', {
  description:
    `PUT the file to uploadUrl (at most ${EVIDENCE_MAX_BYTES} bytes), then list its key in POST /med/infractions/{id}/defence, which checks it. ` +
    `Only while the infraction is OPEN and has no defence (409 INFRACTION_ALREADY_DECIDED, DEFENCE_ALREADY_SUBMITTED). ${DECIDE} A merchant neither the charge’s owner nor a party of the claim → 404 INFRACTION_NOT_FOUND.`,
  request: { params: idParam, body: { content: { 'application/json': { schema: EvidenceUploadRequest } } } },
  responses: {
    201: jsonResponse('The upload URL.', EvidenceUpload),
    ...errorResponses(
      'VALIDATION_ERROR',
      'INFRACTION_NOT_FOUND',
      'INSUFFICIENT_ROLE',
      'INFRACTION_OWNER_ONLY',
      'INFRACTION_ALREADY_DECIDED',
      'DEFENCE_ALREADY_SUBMITTED',
      ...bearerErrors,
    ),
  },
});

path(
  'post',
  '/med/infractions/{id}/defence',
  'submitMedDefence',
  'Defend against a Pix infraction: text and evidence',
  {
    description:
      `Every evidence file is checked first (a key of this infraction, uploaded, 1 to ${EVIDENCE_MAX_BYTES} bytes, a PDF, PNG or JPEG read from its bytes, not its name or declared type; ` +
      `at most ${MAX_EVIDENCE_FILES}): one refused → 400 EVIDENCE_INVALID, that file deleted and nothing stored. Then the defence is stored and its text sent to the provider as the justification ` +
      'of a REJECT (status IN_DEFENCE: the block stays until the provider decides), as POST .../analysis would. The provider takes text only (Efí: justificativa), so the files stay here as evidence. ' +
      'Sending failed → 503 SERVICE_UNAVAILABLE with the defence stored: retry with the same text, or it is sent at the deadline. ' +
      `One defence per infraction (another text → 409 DEFENCE_ALREADY_SUBMITTED); already decided → 409 INFRACTION_ALREADY_DECIDED. ${DECIDE} A merchant neither the charge’s owner nor a party of the claim → 404 INFRACTION_NOT_FOUND.`,
    request: { params: idParam, body: { content: { 'application/json': { schema: DefenceRequest } } } },
    responses: {
      200: jsonResponse('The defence was sent; the infraction is IN_DEFENCE.', DefenceResult),
      ...errorResponses(
        'VALIDATION_ERROR',
        'EVIDENCE_INVALID',
        'INFRACTION_NOT_FOUND',
        'INSUFFICIENT_ROLE',
        'INFRACTION_OWNER_ONLY',
        'INFRACTION_ALREADY_DECIDED',
        'DEFENCE_ALREADY_SUBMITTED',
        'SERVICE_UNAVAILABLE',
        ...bearerErrors,
      ),
    },
  },
);
