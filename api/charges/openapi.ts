/** OpenAPI for /charges (router.ts), from the schemas that validate it (schema.ts). */
import { z } from 'zod';
import {
  errorResponses,
  jsonResponse,
  Pagination,
  registry,
  requiredIdempotencyHeaders,
  requiredIdempotencyRule,
  security,
} from '../openapi/registry';
import { receiptPdfResponse } from '../receipts/downloads/openapi';
import { appCharge, cancelChargeBody, createChargeBody, listChargesQuery } from './schema';

// Derived copies (.describe): the routers import schema.ts before the registry extends zod.
export const Charge = registry.register(
  'Charge',
  appCharge.describe(
    'A charge (application API). Readable on the seller API too, where CANCELED is spelled CANCELLED.',
  ),
);
const CreateChargeRequest = registry.register(
  'CreateChargeRequest',
  createChargeBody.describe('A new charge for a merchant you belong to (role owner, admin or finance).'),
);
const CancelChargeRequest = registry.register('CancelChargeRequest', cancelChargeBody.describe('Why (optional).'));
const ChargeList = registry.register(
  'ChargeList',
  z.object({ data: z.array(Charge), pagination: Pagination }).describe('Newest first.'),
);
const idParam = z.object({ id: z.uuid().openapi({ description: 'Charge id.' }) });
const bearerErrors = ['AUTHENTICATION_REQUIRED', 'INVALID_ACCESS_TOKEN', 'RATE_LIMITED'] as const;

registry.registerPath({
  method: 'post',
  path: '/charges',
  operationId: 'createCharge',
  tags: ['Charges'],
  summary: 'Create a charge',
  description:
    requiredIdempotencyRule('x-idempotency-key') +
    'The same key and body replays the first answer (header `idempotent-replayed: true`); the same key with another body → 409 DUPLICATE_IDEMPOTENCY_KEY. ' +
    'Keys are per merchant. PIX answers the Pix QR code and copy-paste code. ' +
    'BOLETO needs `payer` (400 naming `payer` without it) and registers a hybrid boleto at the provider: the answer carries `boleto` (barcode, digitable line, `pdfUrl`) and `pix` (the same boleto’s Pix BR Code; whichever is paid first settles the charge and the other is closed). ' +
    '`expiresAt` is the due date and time (default for BOLETO: 3 days); optional `boleto` terms (fine, monthly interest, grace days) apply after the due date, and the boleto is closed at expiresAt plus the grace days. ' +
    'A boleto paid late or for another amount is settled for what was paid (see `boleto.payment`). ' +
    'A merchant you do not belong to → 404 MERCHANT_NOT_FOUND; a viewer → 403 INSUFFICIENT_ROLE.',
  security: security.bearer,
  request: {
    headers: requiredIdempotencyHeaders('x-idempotency-key'),
    body: { required: true, content: { 'application/json': { schema: CreateChargeRequest } } },
  },
  responses: {
    201: jsonResponse(
      'The charge, PENDING, with its Pix data (and, for BOLETO, its boleto).',
      Charge,
      {},
      { getCharge: { id: '$response.body#/id' } },
    ),
    ...errorResponses(
      'VALIDATION_ERROR',
      'IDEMPOTENCY_KEY_REQUIRED',
      'MERCHANT_NOT_FOUND',
      'INSUFFICIENT_ROLE',
      'DUPLICATE_IDEMPOTENCY_KEY',
      'PIX_NOT_ISSUED',
      'PROVIDER_ERROR',
      'PSP_CONNECTION_REVOKED',
      'PSP_CONNECTION_REQUIRED',
      'SPLIT_NOT_POSSIBLE',
      'SERVICE_UNAVAILABLE',
      ...bearerErrors,
    ),
  },
});

registry.registerPath({
  method: 'get',
  path: '/charges',
  operationId: 'listCharges',
  tags: ['Charges'],
  summary: 'List a merchant’s charges',
  description:
    'Charges of `merchantId` (default: the merchant you own, or first belong to), any member role, newest first; filtered by status, method, creation time and externalRef, with `limit` and `offset` paging. A merchant you do not belong to → 404 MERCHANT_NOT_FOUND.',
  security: security.bearer,
  request: { query: listChargesQuery },
  responses: {
    200: jsonResponse('A page of charges.', ChargeList),
    ...errorResponses('VALIDATION_ERROR', 'MERCHANT_NOT_FOUND', ...bearerErrors),
  },
});

registry.registerPath({
  method: 'get',
  path: '/charges/{id}',
  operationId: 'getCharge',
  tags: ['Charges'],
  summary: 'Read a charge',
  description:
    'A charge of a merchant you belong to (any role), with its refunds; another merchant’s or an unknown charge → 404 CHARGE_NOT_FOUND.',
  security: security.bearer,
  request: { params: idParam },
  responses: {
    200: jsonResponse('The charge.', Charge),
    ...errorResponses('VALIDATION_ERROR', 'CHARGE_NOT_FOUND', ...bearerErrors),
  },
});

registry.registerPath({
  method: 'post',
  path: '/charges/{id}/cancel',
  operationId: 'cancelCharge',
  tags: ['Charges'],
  summary: 'Cancel a PENDING charge',
  description:
    'The provider closes the payment data first; a payment that wins that race leaves the charge PAID (409 CHARGE_NOT_CANCELLABLE). Cancelling a CANCELED charge answers it again.',
  security: security.bearer,
  request: {
    params: idParam,
    body: { required: false, content: { 'application/json': { schema: CancelChargeRequest } } },
  },
  responses: {
    200: jsonResponse('The charge, CANCELED.', Charge),
    ...errorResponses(
      'VALIDATION_ERROR',
      'CHARGE_NOT_FOUND',
      'INSUFFICIENT_ROLE',
      'CHARGE_NOT_CANCELLABLE',
      'SERVICE_UNAVAILABLE',
      ...bearerErrors,
    ),
  },
});

registry.registerPath({
  method: 'get',
  path: '/charges/{id}/boleto/pdf',
  operationId: 'getChargeBoletoPdf',
  tags: ['Charges'],
  summary: 'The boleto of a BOLETO charge, as PDF',
  description:
    'Any member of the charge’s merchant. The standard layout: beneficiary (the merchant), payer, amount, due date, fine and interest instructions, the digitable line, ' +
    'the barcode (Interleaved 2 of 5) and the hybrid boleto’s Pix QR code and copy-paste code. A charge that is not a boleto → 409 CHARGE_NOT_BOLETO.',
  security: security.bearer,
  request: { params: idParam },
  responses: {
    200: { description: 'The PDF.', content: { 'application/pdf': { schema: z.string().meta({ format: 'binary' }) } } },
    ...errorResponses('VALIDATION_ERROR', 'CHARGE_NOT_FOUND', 'CHARGE_NOT_BOLETO', ...bearerErrors),
  },
});

registry.registerPath({
  method: 'get',
  path: '/charges/{id}/receipt',
  operationId: 'getAppChargeReceipt',
  tags: ['Charges'],
  summary: 'The receipt (comprovante) of a PAID charge, as PDF',
  description:
    'Any member of the charge’s merchant; anyone else → 404 CHARGE_NOT_FOUND. A charge that is not PAID → 409 RECEIPT_UNAVAILABLE. ' +
    'The same PDF as GET /v1/receipts/transactions/{id}, rendered once and kept.',
  security: security.bearer,
  request: { params: idParam },
  responses: {
    200: receiptPdfResponse('comprovante-transacao-{id}.pdf'),
    ...errorResponses('VALIDATION_ERROR', 'CHARGE_NOT_FOUND', 'RECEIPT_UNAVAILABLE', ...bearerErrors),
  },
});
