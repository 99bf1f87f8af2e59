/** OpenAPI for POST /charges/{id}/refund (router.ts), from the schema that validates it (schema.ts). */
import { z } from 'zod';
import {
  errorResponses,
  jsonResponse,
  registry,
  requiredIdempotencyHeaders,
  requiredIdempotencyRule,
  security,
} from '../openapi/registry';
import { Charge } from '../charges/openapi';
import { refundChargeBody } from './schema';

// Derived copy (.describe): the router imports schema.ts before the registry extends zod.
const RefundChargeRequest = registry.register(
  'RefundChargeRequest',
  refundChargeBody.describe('How much (default: all that is left) and why.'),
);

const chargeIdParam = z.object({ id: z.uuid().openapi({ description: 'Charge id.' }) });
const bearerErrors = ['AUTHENTICATION_REQUIRED', 'INVALID_ACCESS_TOKEN', 'RATE_LIMITED'] as const;

registry.registerPath({
  method: 'post',
  path: '/charges/{id}/refund',
  operationId: 'refundCharge',
  tags: ['Charges'],
  summary: 'Refund a paid charge, in full or in part',
  description:
    'A payment made by Pix (a Pix charge, or a boleto paid through its Pix QR code) is returned to its payer (devolução; no `destination`). ' +
    'A boleto paid by barcode is refunded by a Pix transfer to `destination`, which must be a Pix key of the boleto’s payer: a CPF or CNPJ key equal to the payer’s document, ' +
    'or another key of the payer: a CPF/CNPJ key or a named document that is not the payer’s is 422 REFUND_DESTINATION_NOT_PAYER at once; ' +
    'any other key is sent with the payer’s document, and the payment institution refuses a key of anyone else (the refund ends FAILED with failureCode RECIPIENT_DOCUMENT_MISMATCH, nothing sent, the money back). ' +
    'Where the payment institution offers a Pix directory (DICT) look-up, the key is checked there first (422 REFUND_DESTINATION_NOT_PAYER, 422 PIX_KEY_NOT_FOUND) and the directory’s answer is kept with the refund. ' +
    'A merchant that is inactive (409 MERCHANT_INACTIVE) or frozen (409 WITHDRAWAL_FROZEN) refunds nothing; these are answered before any action token is spent. ' +
    'A refund reserved before a freeze is held, not sent, until the merchant is unfrozen. ' +
    'Several partial refunds may follow each other up to the paid amount. ' +
    requiredIdempotencyRule('x-idempotency-key') +
    'The same key and body replays the first answer; another body → 409 DUPLICATE_IDEMPOTENCY_KEY. Needs a role of owner, admin or finance, ' +
    'and, when you have a second factor on, `x-action-token` for "refund" (POST /auth/2fa/action/start). ' +
    'The refund is taken back from everyone the payment credited, in proportion: your net, each split merchant’s share and the platform fee. ' +
    'Your and the split merchants’ shares are reserved from the available balance first (409 INSUFFICIENT_BALANCE_FOR_REFUND when it does not cover them; nothing changes). ' +
    'A charge received in your own PSP account (the connected account model) is refunded from that account only: the devolução takes money only from the account that received the Pix, ' +
    'and the shares the PSP passed on (split partners, the platform fee) are not taken back, so the whole refund is reserved from your balance (409 INSUFFICIENT_BALANCE_FOR_REFUND above it, before anything is sent). ' +
    'While the charge has an open Pix infraction (MED) it is not refunded (409 REFUND_INFRACTION_OPEN; nothing changes): the infraction decides whether its money goes back (GET /med/infractions). ' +
    'Answers the charge with the new refund PROCESSING; it becomes SUCCEEDED (event `charge.refunded`) or FAILED (shares released) when the provider answers.',
  security: security.bearer,
  request: {
    params: chargeIdParam,
    headers: [
      ...requiredIdempotencyHeaders('x-idempotency-key'),
      z
        .string()
        .optional()
        .openapi({
          param: { name: 'x-action-token', in: 'header', description: 'Required when you have a second factor on.' },
        }),
    ],
    body: { required: true, content: { 'application/json': { schema: RefundChargeRequest } } },
  },
  responses: {
    200: jsonResponse('The charge with its refunds.', Charge),
    ...errorResponses(
      'VALIDATION_ERROR',
      'IDEMPOTENCY_KEY_REQUIRED',
      'CHARGE_NOT_FOUND',
      'INSUFFICIENT_ROLE',
      'SECOND_FACTOR_REQUIRED',
      'DUPLICATE_IDEMPOTENCY_KEY',
      'CHARGE_NOT_REFUNDABLE',
      'REFUND_EXCEEDS_PAID_AMOUNT',
      'INSUFFICIENT_BALANCE_FOR_REFUND',
      'REFUND_INFRACTION_OPEN',
      'MERCHANT_INACTIVE',
      'WITHDRAWAL_FROZEN',
      'REFUND_DESTINATION_NOT_PAYER',
      'PIX_KEY_NOT_FOUND',
      'SERVICE_UNAVAILABLE',
      ...bearerErrors,
    ),
  },
});
