/** OpenAPI for /boletos (router.ts), from the schemas that validate it (schema.ts). */
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
import { appCharge } from '../charges/schema';
import {
  batchItemsQuery,
  boletoBatchAccepted,
  boletoBatchView,
  boletoConsultation,
  consultQuery,
  createBoletosBody,
  listBoletosQuery,
  MAX_BOLETOS_PER_REQUEST,
} from './schema';

// Derived copies (.describe): the routers import schema.ts before the registry extends zod.
const Boleto = appCharge.describe('A BOLETO charge (the Charge object).');
const BoletoConsultation = registry.register(
  'BoletoConsultation',
  boletoConsultation.describe('What a digitable line or barcode says.'),
);
const CreateBoletosRequest = registry.register(
  'CreateBoletosRequest',
  createBoletosBody.describe(
    `1 to ${MAX_BOLETOS_PER_REQUEST} boletos for a merchant you belong to (owner, admin or finance).`,
  ),
);
const BoletoBatch = registry.register(
  'BoletoBatch',
  boletoBatchView.describe('A batch with its items’ status (one page of items).'),
);
const BoletoBatchAccepted = registry.register(
  'BoletoBatchAccepted',
  boletoBatchAccepted.describe('The batch is stored; its boletos are being issued.'),
);
const BoletoList = z.object({ data: z.array(Boleto), pagination: Pagination }).describe('Newest first.');
const bearerErrors = ['AUTHENTICATION_REQUIRED', 'INVALID_ACCESS_TOKEN', 'RATE_LIMITED'] as const;
const batchIdParam = z.object({ batchId: z.uuid().openapi({ description: 'Boleto batch id.' }) });

registry.registerPath({
  method: 'get',
  path: '/boletos/consult',
  operationId: 'consultBoleto',
  tags: ['Boletos'],
  summary: 'Decode a digitable line or barcode',
  description:
    'Bank, amount, due date and check digits of a bank boleto (any bank, not only ours). A code that is not 47 or 44 digits, has other characters, or is a utility bill (starts with 8) → 400 VALIDATION_ERROR naming `code`. ' +
    'A well-formed code with a wrong check digit is answered 200 with `valid: false` and, in `errors`, which digit is wrong and what it should be: the code was read, it just is not a valid boleto.',
  security: security.bearer,
  request: { query: consultQuery },
  responses: {
    200: jsonResponse('What the code says.', BoletoConsultation),
    ...errorResponses('VALIDATION_ERROR', ...bearerErrors),
  },
});

registry.registerPath({
  method: 'post',
  path: '/boletos',
  operationId: 'createBoletos',
  tags: ['Boletos'],
  summary: 'Issue one boleto or a batch',
  description:
    requiredIdempotencyRule('x-idempotency-key') +
    'Same replay and conflict rules as POST /charges. One item: the boleto is issued now (a BOLETO charge, as POST /charges makes) → 201 `{batchId: null, boletos: [Charge]}`. ' +
    'Several: the batch and its rows are stored and answered 202 `{batchId, status: PROCESSING, itemsCount}`; the BoletoBatch workflow then issues them, 10 at a time, each retried on provider outages (a new charge per try, 4 tries) and FAILED with a reason when the provider refuses or stays down. ' +
    'Follow it with GET /boletos/batches/{batchId}. Errors in items name the row (`items.<rowIndex>.<field>`, `rowIndex`).',
  security: security.bearer,
  request: {
    headers: requiredIdempotencyHeaders('x-idempotency-key'),
    body: { required: true, content: { 'application/json': { schema: CreateBoletosRequest } } },
  },
  responses: {
    201: jsonResponse(
      'One boleto, issued.',
      z.object({ batchId: z.null(), boletos: z.array(Boleto) }),
      {},
      { getBoleto: { id: '$response.body#/boletos/0/id' } },
    ),
    202: jsonResponse(
      'A batch, stored and being issued.',
      BoletoBatchAccepted,
      {},
      { getBoletoBatch: { batchId: '$response.body#/batchId' } },
    ),
    ...errorResponses(
      'VALIDATION_ERROR',
      'IDEMPOTENCY_KEY_REQUIRED',
      'MERCHANT_NOT_FOUND',
      'INSUFFICIENT_ROLE',
      'DUPLICATE_IDEMPOTENCY_KEY',
      'PAYLOAD_TOO_LARGE',
      'PIX_NOT_ISSUED',
      'PROVIDER_ERROR',
      'PSP_CONNECTION_REVOKED',
      'PSP_CONNECTION_REQUIRED',
      'SERVICE_UNAVAILABLE',
      ...bearerErrors,
    ),
  },
});

registry.registerPath({
  method: 'get',
  path: '/boletos',
  operationId: 'listBoletos',
  tags: ['Boletos'],
  summary: 'List boletos',
  description: 'The BOLETO charges of a merchant you belong to (any role), newest first.',
  security: security.bearer,
  request: { query: listBoletosQuery },
  responses: {
    200: jsonResponse('A page of boletos.', BoletoList),
    ...errorResponses('VALIDATION_ERROR', 'MERCHANT_NOT_FOUND', ...bearerErrors),
  },
});

registry.registerPath({
  method: 'get',
  path: '/boletos/{id}',
  operationId: 'getBoleto',
  tags: ['Boletos'],
  summary: 'Read a boleto',
  description: 'A BOLETO charge of a merchant you belong to (any role); a Pix charge or another merchant’s → 404.',
  security: security.bearer,
  request: { params: z.object({ id: z.uuid().openapi({ description: 'Charge id.' }) }) },
  responses: {
    200: jsonResponse('The boleto.', Boleto),
    ...errorResponses('VALIDATION_ERROR', 'BOLETO_NOT_FOUND', ...bearerErrors),
  },
});

registry.registerPath({
  method: 'get',
  path: '/boletos/batches/{batchId}',
  operationId: 'getBoletoBatch',
  tags: ['Boletos'],
  summary: 'Read a boleto batch',
  description:
    'Status, counts and one page of items by rowIndex (`limit` 1–1000, default 100; `offset`): each with its status, charge id once ISSUED, and our reason when FAILED. Any role; another merchant’s → 404.',
  security: security.bearer,
  request: { params: batchIdParam, query: batchItemsQuery },
  responses: {
    200: jsonResponse('The batch.', BoletoBatch),
    ...errorResponses('VALIDATION_ERROR', 'BOLETO_BATCH_NOT_FOUND', ...bearerErrors),
  },
});

registry.registerPath({
  method: 'delete',
  path: '/boletos/batches/{batchId}/{id}',
  operationId: 'cancelBatchBoleto',
  tags: ['Boletos'],
  summary: 'Cancel one boleto of a batch',
  description:
    '`id` is the item id or its charge id. An issued boleto is cancelled as POST /charges/{id}/cancel does: closed at the provider, only while unpaid (a PAID one → 409 CHARGE_NOT_CANCELLABLE). ' +
    'A row not issued yet is cancelled before it is; a FAILED row → 409 BOLETO_NOT_CANCELLABLE; cancelling again answers the same. Owner, admin or finance.',
  security: security.bearer,
  request: { params: batchIdParam.extend({ id: z.uuid().openapi({ description: 'Item id or charge id.' }) }) },
  responses: {
    200: jsonResponse(
      'The item, CANCELLED, and its charge (null when it was never issued).',
      z.object({ item: boletoBatchView.shape.items.element, charge: Boleto.nullable() }),
    ),
    ...errorResponses(
      'VALIDATION_ERROR',
      'BOLETO_BATCH_NOT_FOUND',
      'BOLETO_NOT_FOUND',
      'INSUFFICIENT_ROLE',
      'BOLETO_NOT_CANCELLABLE',
      'CHARGE_NOT_CANCELLABLE',
      'SERVICE_UNAVAILABLE',
      ...bearerErrors,
    ),
  },
});
