/**
 * OpenAPI for the withdrawal routes (router.ts), from the schemas that validate them (schema.ts).
 * The response schema mirrors core/withdrawals/present.ts; the integration test parses real
 * answers with it so the two cannot drift.
 */
import { z } from 'zod';
import { WITHDRAWAL_STATUSES } from '../../core/withdrawals/rules';
import { idempotencyHeaders, jsonResponse, Pagination, registry } from '../openapi/registry';
import { registerSellerPath } from '../openapi/sellerPaths';
import { createWithdrawalBody, listWithdrawalsQuery, withdrawalId } from './schema';

const nullableString = (description?: string) =>
  z
    .string()
    .nullable()
    .meta(description ? { description } : {});

const account = z.object({
  institution: nullableString(),
  type: nullableString('PAYMENT for the payment account at the gateway.'),
  holderName: nullableString(),
  holderDocument: nullableString(),
  branch: nullableString(),
  account: nullableString(),
});

export const withdrawalResponse = z.object({
  id: z.uuid(),
  amountCents: z.number().int().meta({ description: 'Amount sent to the Pix key, in cents.', example: 10000 }),
  status: z.enum(WITHDRAWAL_STATUSES).meta({
    description:
      'PROCESSING (reserved, being sent) → COMPLETED, or FAILED (refused; reserve returned), or CANCELLED (by an operator before sending; reserve returned).',
  }),
  createdAt: z.iso.datetime(),
  processedAt: z.iso.datetime().nullable().meta({ description: 'When it became COMPLETED, FAILED or CANCELLED.' }),
  userId: z.uuid().nullable().meta({ description: 'The signed-in user who asked; null for client-credential calls.' }),
  feeCents: z.number().int().meta({ description: "The merchant's fixed withdrawal fee.", example: 0 }),
  totalDebitedCents: z
    .number()
    .int()
    .meta({ description: 'amountCents + feeCents, taken from the available balance at request time.' }),
  provider: z.literal('PIX_GATEWAY'),
  providerTransferId: nullableString('Opaque reference of the transfer at the payment institution (`ptr_…`).'),
  providerEndToEndId: nullableString('Pix end-to-end id, once completed.'),
  partnerTxId: nullableString('Our reference of the transfer at the payment institution, once it was sent.'),
  failureReason: nullableString(),
  idempotencyKey: nullableString(),
  payer: z.object({
    merchantId: z.uuid(),
    name: z.string(),
    email: z.string().nullable(),
    document: z.string().nullable(),
    documentType: z.enum(['CPF', 'CNPJ']).nullable(),
    institution: z.string().nullable(),
    account: z.string().nullable(),
  }),
  sourceAccount: account.meta({ description: "The merchant's payment account at the gateway." }),
  beneficiary: z
    .object({
      name: z.string().nullable(),
      document: z.string().nullable(),
      documentMasked: z.string().nullable(),
      documentType: z.enum(['CPF', 'CNPJ']).nullable(),
      pixKey: z.string().nullable(),
      pixKeyMasked: z.string().nullable(),
      pixKeyType: z.enum(['CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP']).nullable(),
      account: account.nullable(),
    })
    .meta({
      description:
        "The merchant's own Pix key, as registered when the withdrawal was requested; all null when unknown.",
    }),
  tracking: z.object({ providerTransferId: z.string().nullable(), endToEndId: z.string().nullable() }),
});

export const WithdrawalSchema = registry.register('Withdrawal', withdrawalResponse);
const CreateWithdrawalRequest = registry.register(
  'CreateWithdrawalRequest',
  createWithdrawalBody.openapi({ description: 'Unknown fields are refused.' }),
);
const tags = ['Seller withdrawals'];

registerSellerPath({
  method: 'post',
  path: '/sellers/saques',
  operationId: 'createWithdrawal',
  tags,
  summary: 'Withdraw available balance to the merchant Pix key',
  description:
    "Reserves amount + fee from the available balance and sends a Pix transfer to the merchant's registered key. " +
    'The 201 comes once the reservation is made; follow the status with GET. A merchant without a registered key gets ' +
    '400 VALIDATION_ERROR with `details.reason: PIX_KEY_NOT_REGISTERED`. A refused request stores nothing and frees its idempotency key. ' +
    'When the reservation cannot be made in time (database trouble) the answer is 503 SERVICE_UNAVAILABLE and nothing is debited, but the ' +
    'request is recorded as a FAILED withdrawal (`failureReason` of NOT_PROCESSED) announced by `withdrawal.failed`: that withdrawal is the ' +
    "key's one effect, so every later request with the same key answers it (201, that id, status FAILED) and never makes another; " +
    'use a new key to withdraw again.',
  request: {
    headers: idempotencyHeaders,
    body: { required: true, content: { 'application/json': { schema: CreateWithdrawalRequest } } },
  },
  responses: {
    201: jsonResponse(
      'The withdrawal, with its reservation made; or, for a key whose earlier request gave up (503), that FAILED withdrawal as it is.',
      WithdrawalSchema,
      {
        'idempotent-replayed': {
          description: '`true` when this is the stored answer of an earlier request with the same key.',
          schema: { type: 'string', enum: ['true'] },
        },
      },
      { getWithdrawal: { id: '$response.body#/id' } },
    ),
  },
  errors: [
    'VALIDATION_ERROR',
    'INSUFFICIENT_AVAILABLE_BALANCE',
    'WITHDRAWAL_FROZEN',
    'MONEY_IN_OWN_ACCOUNT',
    'DUPLICATE_IDEMPOTENCY_KEY',
    'PAYLOAD_TOO_LARGE',
    'SERVICE_UNAVAILABLE',
  ],
});

registerSellerPath({
  method: 'get',
  path: '/sellers/saques',
  operationId: 'listWithdrawals',
  tags,
  summary: "List the merchant's withdrawals, newest first",
  description: "The authenticated merchant's withdrawals only, in every status, with `limit` and `offset` paging.",
  request: { query: listWithdrawalsQuery },
  responses: {
    200: jsonResponse(
      'A page of withdrawals.',
      z.object({ withdrawals: z.array(WithdrawalSchema), pagination: Pagination }),
    ),
  },
  errors: ['VALIDATION_ERROR'],
});

registerSellerPath({
  method: 'get',
  path: '/sellers/saques/{id}',
  operationId: 'getWithdrawal',
  tags,
  summary: 'Read a withdrawal',
  description:
    "Among the authenticated merchant's withdrawals only: another merchant's or an unknown id → 404 NOT_FOUND; longer than 120 characters or with a control character → 400 INVALID_WITHDRAWAL_ID. " +
    'GET /v1/receipts/withdrawals/{id} takes the same ids.',
  request: { params: z.object({ id: withdrawalId }) },
  responses: { 200: jsonResponse('The withdrawal.', WithdrawalSchema) },
  errors: ['INVALID_WITHDRAWAL_ID', 'NOT_FOUND'],
});
