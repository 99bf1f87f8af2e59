/** OpenAPI for the seller Pix routes (router.ts), from the schemas that validate them (schema.ts). */
import { z } from 'zod';
import { idempotencyHeaders, jsonResponse, registry, webhookCallbacks } from '../../openapi/registry';
import { registerSellerPath } from '../../openapi/sellerPaths';
import { chargeLookupId, createSellerPixBody } from './schema';
import { sellerPixCharge } from './responseSchema';

const CreateSellerPixRequest = registry.register('CreateSellerPixRequest', createSellerPixBody);
export const SellerPixCharge = registry.register('SellerPixCharge', sellerPixCharge);

registerSellerPath({
  method: 'post',
  path: '/sellers/pix',
  operationId: 'createSellerPixCharge',
  tags: ['Seller Pix charges'],
  summary: 'Create a Pix charge',
  description:
    'Issues a Pix charge at the provider and starts its lifecycle. With an idempotency key, the same key and body ' +
    'replay the stored answer (header `idempotent-replayed: true`); concurrent requests with one key get the same charge. ' +
    'With `webhook_url`, a webhook for the lifecycle events of this charge is created; its secret is shown in this 201 only.',
  request: {
    headers: idempotencyHeaders,
    body: { required: true, content: { 'application/json': { schema: CreateSellerPixRequest } } },
  },
  callbacks: webhookCallbacks(
    '{$request.body#/webhook_url}',
    'ChargeWebhookEvent',
    'With `webhook_url`: the events of this charge (charge.created, charge.paid, charge.expired, charge.cancelled, charge.refunded).',
  ),
  responses: {
    201: jsonResponse(
      'The charge, issued and pending payment.',
      SellerPixCharge,
      {
        'idempotent-replayed': {
          description: '`true` when this is the stored answer of an earlier request with the same key.',
          schema: { type: 'string', enum: ['true'] },
        },
      },
      { getSellerPixCharge: { id: '$response.body#/id' } },
    ),
  },
  errors: [
    'VALIDATION_ERROR',
    'DUPLICATE_IDEMPOTENCY_KEY',
    'PAYLOAD_TOO_LARGE',
    'PIX_NOT_ISSUED',
    'PROVIDER_ERROR',
    'PSP_CONNECTION_REVOKED',
    'PSP_CONNECTION_REQUIRED',
    'SPLIT_NOT_POSSIBLE',
    'SERVICE_UNAVAILABLE',
  ],
});

registerSellerPath({
  method: 'get',
  path: '/sellers/pix/{id}',
  operationId: 'getSellerPixCharge',
  tags: ['Seller Pix charges'],
  summary: 'Read a Pix charge',
  description: "Looks the charge up by any of its identifiers, among the authenticated merchant's charges only.",
  request: { params: z.object({ id: chargeLookupId }) },
  responses: { 200: jsonResponse('The charge.', SellerPixCharge) },
  errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
});
