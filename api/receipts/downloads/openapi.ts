/** OpenAPI for /v1/receipts (router.ts), from the schemas that validate it (schema.ts). */
import { z } from 'zod';
import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { errorResponses, registry, security, signatureHeaders } from '../../openapi/registry';
import { withdrawalId } from '../../withdrawals/schema';
import { payoutItemReceiptId, transactionReceiptId } from './schema';

/** Answered by the middleware in front of every receipt route (router.ts). */
const sharedErrors = [
  'VALIDATION_ERROR',
  'CREDENTIALS_REQUIRED',
  'INVALID_CREDENTIALS',
  'MERCHANT_ID_REQUIRED',
  'INVALID_SIGNATURE',
  'INSUFFICIENT_SCOPE',
  'NOT_FOUND',
  'RECEIPT_UNAVAILABLE',
  'RATE_LIMITED',
] as const;

/** The 200 of every receipt download: a PDF with exactly these headers. */
export function receiptPdfResponse(filename: string): ResponseConfig {
  return {
    description:
      'The receipt (comprovante) as a one-page PDF: payer and receiver (documents masked), amount, date and time (Brasília), endToEndId, txid, and a QR code to GET /receipts/verify.',
    headers: {
      'Content-Type': {
        description: 'Always `application/pdf`.',
        schema: { type: 'string', enum: ['application/pdf'] },
      },
      'Content-Disposition': {
        description: `\`inline; filename=${filename}\`, with {id} as in the path.`,
        schema: { type: 'string' },
      },
      'Cache-Control': {
        description: 'Always `private, no-store`.',
        schema: { type: 'string', enum: ['private, no-store'] },
      },
    },
    content: { 'application/pdf': { schema: z.string().meta({ format: 'binary' }) } },
  };
}

const rendering = 'Rendered once per set of facts and kept: downloading it again answers the same bytes.';

function transactionRoute(path: string, operationId: string, summary: string, alias: boolean): void {
  registry.registerPath({
    method: 'get',
    path,
    operationId,
    tags: ['Receipts'],
    summary,
    description:
      (alias ? 'Alias of GET /v1/receipts/transactions/{id}. ' : '') +
      'Needs the scope `charges:read` and a request signature over this path exactly as sent (the same {id} as the URL). ' +
      '{id} is any id of one of your charges: our id, `externalRef`, `providerChargeId` (= `providerTransactionId`), `pixTxid` or `endToEndId`; ' +
      'another merchant’s or an unknown id → 404 NOT_FOUND; an id with other characters or longer than 128 → 400 VALIDATION_ERROR. ' +
      'A charge that is not PAID → 409 RECEIPT_UNAVAILABLE. Refunded charges list their refunds. ' +
      rendering,
    security: security.clientCredentials,
    request: { headers: signatureHeaders.required, params: z.object({ id: transactionReceiptId }) },
    responses: { 200: receiptPdfResponse('comprovante-transacao-{id}.pdf'), ...errorResponses(...sharedErrors) },
  });
}

transactionRoute(
  '/v1/receipts/transactions/{id}',
  'getTransactionReceipt',
  'The receipt of a paid charge (PDF)',
  false,
);
transactionRoute('/v1/receipts/charges/{id}', 'getChargeReceipt', 'The receipt of a paid charge (PDF); alias', true);

registry.registerPath({
  method: 'get',
  path: '/v1/receipts/withdrawals/{id}',
  operationId: 'getWithdrawalReceipt',
  tags: ['Receipts'],
  summary: 'The receipt of a completed withdrawal (PDF)',
  description:
    'Needs the scope `withdrawals:read` and a request signature. {id} takes exactly the ids GET /sellers/saques/{id} takes: another merchant’s or an unknown withdrawal → 404 NOT_FOUND; ' +
    'longer than 120 characters or with a control character → 400 VALIDATION_ERROR; ' +
    'not COMPLETED yet (or FAILED) → 409 RECEIPT_UNAVAILABLE. Shows the amount, the fee and the total debited. ' +
    rendering,
  security: security.clientCredentials,
  request: { headers: signatureHeaders.required, params: z.object({ id: withdrawalId }) },
  responses: { 200: receiptPdfResponse('comprovante-saque-{id}.pdf'), ...errorResponses(...sharedErrors) },
});

registry.registerPath({
  method: 'get',
  path: '/v1/receipts/payout-items/{id}',
  operationId: 'getPayoutItemReceipt',
  tags: ['Receipts'],
  summary: 'The receipt of a paid payout item (PDF)',
  description:
    'One Pix transfer of a payout batch. Needs the scope `payouts:read` and a request signature. Another merchant’s or an unknown item → 404 NOT_FOUND; not a UUID → 400 VALIDATION_ERROR; ' +
    'not PAID yet (or FAILED, CANCELLED) → 409 RECEIPT_UNAVAILABLE. ' +
    rendering,
  security: security.clientCredentials,
  request: { headers: signatureHeaders.required, params: z.object({ id: payoutItemReceiptId }) },
  responses: { 200: receiptPdfResponse('comprovante-pagamento-{id}.pdf'), ...errorResponses(...sharedErrors) },
});
