/** OpenAPI for /reconciliations (router.ts), from the schemas that validate it (schema.ts). */
import { z } from 'zod';
import { bearerPaths, errorResponses, jsonResponse, Pagination, registry } from '../openapi/registry';
import { createReconciliationBody, listReconciliationsQuery, reconciliationView } from './schema';

// Derived copies (.describe): the routers import schema.ts before the registry extends zod.
const Reconciliation = registry.register(
  'Reconciliation',
  reconciliationView.describe(
    'The provider’s statement compared with the ledger for a merchant’s (or, platform-wide, every merchant’s) Pix payments, devoluções and transfers out in [from, to] (Brasília days). ' +
      'matched: same gross and endToEndId on both sides; missingInLedger: on the statement, no ledger entry (a lost callback); missingAtProvider: credited here, not on the statement; ' +
      'amountMismatch: both, but the amount or endToEndId differ (for a person to look at; nothing is changed). healed counts the lost payments handed to the normal settlement path.',
  ),
);
const ReconciliationList = registry.register(
  'ReconciliationList',
  z.object({ data: z.array(Reconciliation), pagination: Pagination }).describe('Newest first.'),
);
const CreateReconciliationRequest = registry.register(
  'CreateReconciliationRequest',
  createReconciliationBody.describe('A merchant (operators may leave it out) and a date range of at most 31 days.'),
);

const bearerErrors = ['AUTHENTICATION_REQUIRED', 'INVALID_ACCESS_TOKEN', 'RATE_LIMITED'] as const;
const ROLES = 'Owner, admin and finance (a viewer → 403 INSUFFICIENT_ROLE).';

const path = bearerPaths('Reconciliations');

path('post', '/reconciliations', 'createReconciliation', 'Reconcile a date range with the provider’s statement', {
  description:
    'Starts a Reconciliation workflow and answers 202 with the row RUNNING; poll GET /reconciliations/{id} until COMPLETED (or FAILED, with failureReason). ' +
    'A payment the provider has and the ledger lacks (a lost callback) is settled through the normal path (the charge’s lifecycle, or the late-payment path when it is closed), which asks the provider again and credits it once; ' +
    'the reconciliation itself never writes to the ledger. Pix payments, devoluções (RETURN) and transfers out (TRANSFER: withdrawals, settlements, payout items) are compared. ' +
    'Without `merchantId`: a platform-wide run over every merchant’s books (merchantId null in the answer), for platform operators only (marked by the CLI `user operator`); anyone else → 400 VALIDATION_ERROR on merchantId. ' +
    `${ROLES} A merchant you do not belong to → 404 MERCHANT_NOT_FOUND.`,
  request: { body: { content: { 'application/json': { schema: CreateReconciliationRequest } } } },
  responses: {
    202: jsonResponse('Started.', Reconciliation, {}, { getReconciliation: { id: '$response.body#/id' } }),
    ...errorResponses('VALIDATION_ERROR', 'MERCHANT_NOT_FOUND', 'INSUFFICIENT_ROLE', ...bearerErrors),
  },
});

path('get', '/reconciliations', 'listReconciliations', 'List a merchant’s reconciliations', {
  description: `${ROLES} A merchant you do not belong to → 404 MERCHANT_NOT_FOUND. With platform=true: the platform-wide runs (platform operators only, else 403 PLATFORM_OPERATOR_REQUIRED; an operator who also names a merchant → 400 VALIDATION_ERROR).`,
  request: { query: listReconciliationsQuery },
  responses: {
    200: jsonResponse('A page of reconciliations.', ReconciliationList),
    ...errorResponses(
      'VALIDATION_ERROR',
      'MERCHANT_NOT_FOUND',
      'INSUFFICIENT_ROLE',
      'PLATFORM_OPERATOR_REQUIRED',
      ...bearerErrors,
    ),
  },
});

path('get', '/reconciliations/{id}', 'getReconciliation', 'Read a reconciliation: counts and differences', {
  description: `${ROLES} Another merchant’s reconciliation → 404 RECONCILIATION_NOT_FOUND; so is a platform-wide run, to anyone but a platform operator.`,
  request: { params: z.object({ id: z.uuid().openapi({ description: 'Reconciliation id.' }) }) },
  responses: {
    200: jsonResponse('The reconciliation.', Reconciliation),
    ...errorResponses('VALIDATION_ERROR', 'RECONCILIATION_NOT_FOUND', 'INSUFFICIENT_ROLE', ...bearerErrors),
  },
});
