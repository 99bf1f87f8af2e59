/** OpenAPI for /v1/payouts/batches (router.ts), from the schemas that validate it (schema.ts). */
import { z } from 'zod';
import { MAX_BATCH_ITEMS, MAX_ITEM_AMOUNT_CENTS } from '../../core/payouts/limits';
import {
  errorResponses,
  idempotencyHeaders,
  jsonResponse,
  registry,
  security,
  signatureHeaders,
} from '../openapi/registry';
import {
  batchIdParam,
  batchStatuses,
  cancelBatchBody,
  createPayoutBatchBody,
  itemStatuses,
  listBatchesQuery,
  listItemsQuery,
  payoutPixKeyType,
} from './schema';

/** Answered by the middleware in front of every payout route (router.ts). */
const sharedErrors = [
  'VALIDATION_ERROR',
  'CREDENTIALS_REQUIRED',
  'INVALID_CREDENTIALS',
  'MERCHANT_ID_REQUIRED',
  'INVALID_SIGNATURE',
  'INSUFFICIENT_SCOPE',
  'PAYOUTS_NOT_ENABLED',
  'RATE_LIMITED',
  'PAYLOAD_TOO_LARGE',
] as const;

const CreatePayoutBatchRequest = registry.register(
  'CreatePayoutBatchRequest',
  createPayoutBatchBody.describe(
    `1 to ${MAX_BATCH_ITEMS} items of 1 to ${MAX_ITEM_AMOUNT_CENTS} cents each. Pix keys are checked for their type ` +
      '(CPF/CNPJ with check digits, EMAIL, PHONE as +55 and 10–11 digits, EVP as a UUID). A 400 VALIDATION_ERROR reports every invalid field of every item at once ' +
      '(shape, Pix key and document together): `details.fields` `[{field: "items.<rowIndex>.<field>", rowIndex, message}]`, one entry per field in row order, the first 100; ' +
      '`details.totalInvalidFields` counts them all.',
  ),
);

export const payoutBatchCreated = z.object({
  batchId: z.uuid(),
  status: z.literal('PROCESSING'),
  totalAmountCents: z.number().int(),
  totalFeeCents: z.number().int().describe('Per-item fee × items, charged on top of the amounts.'),
  totalFundingCents: z.number().int().describe('Amount + fees: what was reserved from the available balance.'),
  itemsCount: z.number().int(),
  idempotencyReplay: z.boolean(),
});

export const payoutItem = z.object({
  id: z.uuid(),
  status: z.enum(itemStatuses).describe('PENDING → SENDING → PAID | FAILED; PENDING → CANCELLED. Only forward.'),
  amountCents: z.number().int(),
  feeCents: z.number().int(),
  netAmountCents: z
    .number()
    .int()
    .describe('What the recipient receives (the full amount; the fee is charged to the merchant).'),
  recipientName: z.string(),
  pixKeyType: payoutPixKeyType,
  referenceId: z.string().nullable(),
  endToEndId: z.string().nullable(),
  lastError: z.string().nullable(),
  lastErrorCode: z
    .string()
    .nullable()
    .describe('e.g. INVALID_PIX_KEY, RECIPIENT_REFUSED, PROVIDER_UNAVAILABLE (while retrying).'),
  settledAt: z.iso.datetime().nullable(),
  releasedAt: z.iso
    .datetime()
    .nullable()
    .describe('When a failed or cancelled item’s funding went back to the available balance.'),
  rowIndex: z.number().int(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export const payoutBatchListEntry = z.object({
  id: z.uuid(),
  status: z.enum(batchStatuses),
  totalAmountCents: z.number().int(),
  totalFeeCents: z.number().int(),
  totalItems: z.number().int(),
  paidItems: z.number().int(),
  failedItems: z.number().int(),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

export const payoutBatch = payoutBatchListEntry.extend({
  totalNetCents: z.number().int(),
  totalFundingCents: z.number().int(),
  cancelledItems: z.number().int(),
  pendingItems: z.number().int(),
  releasedAmountCents: z.number().int(),
  cancelReason: z.string().nullable(),
  description: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  completedAt: z.iso.datetime().nullable(),
  items: z.array(payoutItem).describe('The first 1,000 items by rowIndex; page through all of them with /items.'),
});

export const cancelBatchResult = z.object({
  batchId: z.uuid(),
  status: z
    .enum(batchStatuses)
    .exclude(['PROCESSING'])
    .describe('The final status the cancel left the batch in (usually CANCELLED; sent items still finish).'),
  releasedAmountCents: z.number().int(),
});

const PayoutBatchCreated = registry.register('PayoutBatchCreated', payoutBatchCreated);
const PayoutItem = registry.register('PayoutItem', payoutItem);
const PayoutBatchListEntry = registry.register('PayoutBatchListEntry', payoutBatchListEntry);
const PayoutBatch = registry.register('PayoutBatch', payoutBatch);
const params = z.object({ batchId: batchIdParam });
const batchLinks = {
  getPayoutBatch: { batchId: '$response.body#/batchId' },
  listPayoutItems: { batchId: '$response.body#/batchId' },
};

registry.registerPath({
  method: 'post',
  path: '/v1/payouts/batches',
  operationId: 'createPayoutBatch',
  tags: ['Payout batches'],
  summary: 'Create a payout batch',
  description:
    'Reserves amount + fees from the available balance at once, then pays each item by Pix in the background. ' +
    '`idempotencyKey` (8–100 characters, per merchant): the same key and body answer 200 with `idempotencyReplay: true`; another body → 409.',
  security: security.clientCredentials,
  request: {
    headers: signatureHeaders.required,
    body: { required: true, content: { 'application/json': { schema: CreatePayoutBatchRequest } } },
  },
  responses: {
    201: jsonResponse('Batch created and funded; items are being paid.', PayoutBatchCreated, {}, batchLinks),
    200: jsonResponse('Idempotent replay of an earlier create.', PayoutBatchCreated, {}, batchLinks),
    ...errorResponses(
      ...sharedErrors,
      'INSUFFICIENT_AVAILABLE_BALANCE',
      'WITHDRAWAL_FROZEN',
      'PSP_CONNECTION_REVOKED',
      'PSP_CONNECTION_REQUIRED',
      'DUPLICATE_IDEMPOTENCY_KEY',
      'SERVICE_UNAVAILABLE',
    ),
  },
});

registry.registerPath({
  method: 'get',
  path: '/v1/payouts/batches',
  operationId: 'listPayoutBatches',
  tags: ['Payout batches'],
  summary: 'List payout batches, newest first',
  description:
    "The authenticated merchant's batches, filtered by `status` and creation time, with `limit` and `offset` paging; without their items (GET /v1/payouts/batches/{batchId} has them).",
  security: security.clientCredentials,
  request: { headers: signatureHeaders.required, query: listBatchesQuery },
  responses: {
    200: jsonResponse(
      'A page of batches.',
      z.object({ items: z.array(PayoutBatchListEntry), limit: z.number().int(), offset: z.number().int() }),
    ),
    ...errorResponses(...sharedErrors),
  },
});

registry.registerPath({
  method: 'get',
  path: '/v1/payouts/batches/{batchId}',
  operationId: 'getPayoutBatch',
  tags: ['Payout batches'],
  summary: 'Read a payout batch with its items',
  description:
    "Totals, item counts by status and the first 1,000 items by rowIndex. Another merchant's or an unknown batch → 404 BATCH_NOT_FOUND.",
  security: security.clientCredentials,
  request: { headers: signatureHeaders.required, params },
  responses: { 200: jsonResponse('The batch.', PayoutBatch), ...errorResponses(...sharedErrors, 'BATCH_NOT_FOUND') },
});

registry.registerPath({
  method: 'get',
  path: '/v1/payouts/batches/{batchId}/items',
  operationId: 'listPayoutItems',
  tags: ['Payout batches'],
  summary: 'List the items of a batch by rowIndex',
  description:
    "Pages through every item of a batch (filtered by `status`), in the order of the request's rows. Another merchant's or an unknown batch → 404 BATCH_NOT_FOUND.",
  security: security.clientCredentials,
  request: { headers: signatureHeaders.required, params, query: listItemsQuery },
  responses: {
    200: jsonResponse(
      'A page of items.',
      z.object({ items: z.array(PayoutItem), limit: z.number().int(), offset: z.number().int() }),
    ),
    ...errorResponses(...sharedErrors, 'BATCH_NOT_FOUND'),
  },
});

registry.registerPath({
  method: 'post',
  path: '/v1/payouts/batches/{batchId}/cancel',
  operationId: 'cancelPayoutBatch',
  tags: ['Payout batches'],
  summary: 'Cancel a batch: unsent items stop and their funding is released',
  description:
    'Items already sent to the provider finish first (paid or failed); every item not yet sent becomes CANCELLED and its amount + fee ' +
    'returns to the available balance, once. Cancelling the run in the Temporal Web UI does the same.',
  security: security.clientCredentials,
  request: {
    params,
    headers: [...signatureHeaders.required, ...idempotencyHeaders],
    body: { required: true, content: { 'application/json': { schema: cancelBatchBody } } },
  },
  responses: {
    200: jsonResponse('The batch after the cancel.', registry.register('CancelPayoutBatchResult', cancelBatchResult)),
    ...errorResponses(...sharedErrors, 'BATCH_NOT_FOUND', 'BATCH_NOT_CANCELLABLE', 'DUPLICATE_IDEMPOTENCY_KEY'),
  },
});
