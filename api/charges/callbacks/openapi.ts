/** OpenAPI for the provider callback routes (router.ts), mounted at /webhooks/pix-gateway. */
import { z } from 'zod';
import { errorResponses, jsonResponse, registry, security } from '../../openapi/registry';
import { callbackOutcome, providerCallbackBody } from './schema';

registry.registerPath({
  method: 'post',
  path: '/webhooks/pix-gateway',
  operationId: 'receiveProviderCallback',
  tags: ['Provider callbacks'],
  summary: 'Payment callback from the provider (charge.paid, boleto.paid)',
  description:
    'Called by the Pix provider, not by merchants. Answers 200 only once the event is durable in Temporal, so the provider retries ' +
    'anything not taken (any non-2xx, including 500 while Temporal is unreachable). Every callback is stored with its first outcome; a replay answers it again and changes nothing. ' +
    "A callback is a claim: nothing is credited until the provider's own record of the charge says PAID with our reference and amount. " +
    "`boleto.paid` (a boleto paid by barcode or by its Pix) is checked the same way against the provider's boleto, and settled for the amount that record says was paid.",
  security: security.providerCallback,
  request: {
    body: {
      required: true,
      content: { 'application/json': { schema: registry.register('ProviderCallback', providerCallbackBody) } },
    },
  },
  responses: {
    200: jsonResponse('Taken.', z.object({ received: z.literal(true), outcome: callbackOutcome })),
    ...errorResponses('VALIDATION_ERROR', 'INVALID_SIGNATURE', 'PAYLOAD_TOO_LARGE', 'RATE_LIMITED'),
  },
});

export const providerCallbackHealthResponse = z.object({
  ok: z.literal(true),
  timestamp: z.iso.datetime(),
  lastCallbackAt: z.iso
    .datetime()
    .nullable()
    .meta({ description: 'When the last callback with a valid signature arrived; null if none is recorded.' }),
  callbacksLastHour: z
    .number()
    .int()
    .min(0)
    .meta({ description: 'Callbacks with a valid signature received in the last hour.' }),
  signatureFailuresLastHour: z
    .number()
    .int()
    .min(0)
    .meta({ description: 'Callbacks refused with 401 INVALID_SIGNATURE in the last hour.' }),
});

registry.registerPath({
  method: 'get',
  path: '/webhooks/pix-gateway/health',
  operationId: 'providerCallbackHealth',
  tags: ['Provider callbacks'],
  summary: 'Callback endpoint health: last callback received, signature failures in the last hour',
  description:
    'Public, like the callback endpoint (for the provider and uptime checks); platform-wide figures, no merchant data. ' +
    'Counted by every API process in per-minute buckets (shared through the database within ~2 s), so "last hour" is the last 60 minutes to the minute.',
  security: security.none,
  responses: {
    200: jsonResponse('Up.', registry.register('ProviderCallbackHealth', providerCallbackHealthResponse)),
    ...errorResponses('RATE_LIMITED'),
  },
});
