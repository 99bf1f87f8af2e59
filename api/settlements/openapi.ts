/** OpenAPI for /settlements (router.ts), from the schemas that validate it (schema.ts). */
import { z } from 'zod';
import {
  bearerPaths,
  errorResponses,
  jsonResponse,
  Pagination,
  registry,
  requiredIdempotencyHeaders,
  requiredIdempotencyRule,
} from '../openapi/registry';
import {
  createSettlementBody,
  listSettlementsQuery,
  putScheduleBody,
  scheduleQuery,
  scheduleView,
  settlementView,
} from './schema';

// Derived copies (.describe): the routers import schema.ts before the registry extends zod.
const Settlement = registry.register(
  'Settlement',
  settlementView.describe(
    'A settlement: the merchant’s available balance sent to the merchant’s own registered Pix key. Status, amounts and tracking are those of the withdrawal that moves the money ' +
      '(PROCESSING → COMPLETED, or FAILED / CANCELLED with the reserve returned). Destination is always the registered Pix key: bank-account (TED) destinations are not offered.',
  ),
);
const SettlementList = registry.register(
  'SettlementList',
  z.object({ data: z.array(Settlement), pagination: Pagination }).describe('Newest first.'),
);
const CreateSettlementRequest = registry.register(
  'CreateSettlementRequest',
  createSettlementBody.describe('A merchant and, optionally, an amount (default: everything available minus the fee).'),
);
const SettlementSchedule = registry.register(
  'SettlementSchedule',
  scheduleView.describe(
    'A merchant’s automatic settlement: a Temporal Schedule `settlement-<merchantId>` (America/Sao_Paulo).',
  ),
);
const PutSettlementScheduleRequest = registry.register(
  'PutSettlementScheduleRequest',
  putScheduleBody.describe('Frequency, minimum and (optionally) paused.'),
);

const bearerErrors = ['AUTHENTICATION_REQUIRED', 'INVALID_ACCESS_TOKEN', 'RATE_LIMITED'] as const;
const ROLES =
  'Owner, admin and finance (a viewer → 403 INSUFFICIENT_ROLE). A merchant you do not belong to → 404 MERCHANT_NOT_FOUND.';

const path = bearerPaths('Settlements');

path('post', '/settlements', 'createSettlement', 'Settle the available balance to the merchant’s Pix key now', {
  description:
    'Reserves amount + withdrawal fee and answers 201 once the reservation is committed; the Pix transfer follows (poll GET /settlements/{id}). ' +
    'Without amountCents, everything available minus the fee is settled (computed under the merchant’s lock). ' +
    requiredIdempotencyRule('x-idempotency-key') +
    'A replay with the same body answers the same settlement; another body → 409 DUPLICATE_IDEMPOTENCY_KEY. When you have a second factor on, it also needs ' +
    '`x-action-token` for "settlement" (POST /auth/2fa/action/start). Not enough available (or nothing available) → 400 INSUFFICIENT_AVAILABLE_BALANCE; no Pix key registered → 400 VALIDATION_ERROR with reason PIX_KEY_NOT_REGISTERED; ' +
    `frozen → 409 WITHDRAWAL_FROZEN. A refused request stores nothing. A reservation not made in time → 503 SERVICE_UNAVAILABLE, nothing debited, ` +
    'recorded as a FAILED settlement (failure NOT_PROCESSED) that every later request with the same key answers (201); use a new key to settle again. ' +
    `${ROLES}`,
  request: {
    body: { content: { 'application/json': { schema: CreateSettlementRequest } } },
    headers: [
      ...requiredIdempotencyHeaders('x-idempotency-key'),
      z
        .string()
        .optional()
        .openapi({
          param: {
            name: 'x-action-token',
            in: 'header',
            description: 'An action token for "settlement"; required when you have a second factor on.',
          },
        }),
    ],
  },
  responses: {
    201: jsonResponse(
      'Reserved; the transfer is under way (or already done).',
      Settlement,
      {},
      { getSettlement: { id: '$response.body#/id' } },
    ),
    ...errorResponses(
      'VALIDATION_ERROR',
      'IDEMPOTENCY_KEY_REQUIRED',
      'INSUFFICIENT_AVAILABLE_BALANCE',
      'MERCHANT_ID_REQUIRED',
      'MERCHANT_NOT_FOUND',
      'INSUFFICIENT_ROLE',
      'SECOND_FACTOR_REQUIRED',
      'DUPLICATE_IDEMPOTENCY_KEY',
      'WITHDRAWAL_FROZEN',
      'MONEY_IN_OWN_ACCOUNT',
      'SERVICE_UNAVAILABLE',
      ...bearerErrors,
    ),
  },
});

path('get', '/settlements', 'listSettlements', 'List a merchant’s settlements', {
  description: ROLES,
  request: { query: listSettlementsQuery },
  responses: {
    200: jsonResponse('A page of settlements.', SettlementList),
    ...errorResponses('VALIDATION_ERROR', 'MERCHANT_NOT_FOUND', 'INSUFFICIENT_ROLE', ...bearerErrors),
  },
});

path('get', '/settlements/schedule', 'getSettlementSchedule', 'Read a merchant’s automatic settlement schedule', {
  description: `paused is read from the Temporal Schedule, so a pause made in the Web UI shows here. No schedule → 404 SETTLEMENT_SCHEDULE_NOT_FOUND. ${ROLES}`,
  request: { query: scheduleQuery },
  responses: {
    200: jsonResponse('The schedule.', SettlementSchedule),
    ...errorResponses(
      'VALIDATION_ERROR',
      'SETTLEMENT_SCHEDULE_NOT_FOUND',
      'MERCHANT_NOT_FOUND',
      'INSUFFICIENT_ROLE',
      'SERVICE_UNAVAILABLE',
      ...bearerErrors,
    ),
  },
});

path(
  'put',
  '/settlements/schedule',
  'putSettlementSchedule',
  'Create or change a merchant’s automatic settlement schedule',
  {
    description:
      'Creates or updates the Temporal Schedule `settlement-<merchantId>` (visible and pausable in the Web UI). D0: daily 23:00, everything available. D1: daily 06:00, what was available at the end of the previous day ' +
      '(never more than is available now). WEEKLY: Mondays 06:00, like D1. The fee is debited on top of the amount sent; a run whose amount is below minimumAmountCents settles nothing ' +
      `(the skip is the run’s result in Temporal, no settlement is recorded). ${ROLES}`,
    request: { body: { content: { 'application/json': { schema: PutSettlementScheduleRequest } } } },
    responses: {
      200: jsonResponse('The schedule as it now is.', SettlementSchedule),
      ...errorResponses(
        'VALIDATION_ERROR',
        'MERCHANT_NOT_FOUND',
        'INSUFFICIENT_ROLE',
        'SERVICE_UNAVAILABLE',
        ...bearerErrors,
      ),
    },
  },
);

path('delete', '/settlements/schedule', 'deleteSettlementSchedule', 'Stop automatic settlements for a merchant', {
  description: `Deletes the Temporal Schedule and its config; settlements already made are kept. No schedule → 404 SETTLEMENT_SCHEDULE_NOT_FOUND. ${ROLES}`,
  request: { query: scheduleQuery },
  responses: {
    204: { description: 'Deleted.' },
    ...errorResponses(
      'VALIDATION_ERROR',
      'SETTLEMENT_SCHEDULE_NOT_FOUND',
      'MERCHANT_NOT_FOUND',
      'INSUFFICIENT_ROLE',
      'SERVICE_UNAVAILABLE',
      ...bearerErrors,
    ),
  },
});

path('get', '/settlements/{id}', 'getSettlement', 'Read a settlement', {
  description: `Another merchant’s settlement → 404 SETTLEMENT_NOT_FOUND. ${ROLES}`,
  request: { params: z.object({ id: z.uuid().openapi({ description: 'Settlement id.' }) }) },
  responses: {
    200: jsonResponse('The settlement.', Settlement),
    ...errorResponses('VALIDATION_ERROR', 'SETTLEMENT_NOT_FOUND', 'INSUFFICIENT_ROLE', ...bearerErrors),
  },
});
