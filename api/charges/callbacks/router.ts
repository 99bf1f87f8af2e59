/**
 * POST /webhooks/pix-gateway: payment callbacks from the Pix provider, authenticated by the
 * provider's HMAC signature over the raw body (not by client credentials). 200 only once the
 * event is durable in Temporal, so the provider retries anything we did not take. Every valid
 * callback and every signature failure is counted for GET /health (callbackHealth.ts).
 */
import { Router, type RequestHandler } from 'express';
import { verifyProviderCallbackSignature } from '../../../core/pix/providerSignature';
import { PROVIDER_CALLBACK_SIGNATURE_HEADER, PROVIDER_CALLBACK_TIMESTAMP_HEADER } from '../../../core/provider';
import { errors } from '../../errors/apiError';
import { parseOrThrow } from '../../validation/validate';
import { providerCallbackBody } from './schema';
import type { ProviderCallbackService, ProviderEvent } from '../../../db/charges';
import type { CallbackHealth } from './callbackHealth';

export function providerCallbackRouter(deps: {
  service: ProviderCallbackService;
  callbackSecret: string;
  health: CallbackHealth;
}): Router {
  const router = Router();
  const receive: RequestHandler = async (req, res) => {
    const ok = verifyProviderCallbackSignature(
      req.rawBody ?? Buffer.alloc(0),
      req.header(PROVIDER_CALLBACK_TIMESTAMP_HEADER),
      req.header(PROVIDER_CALLBACK_SIGNATURE_HEADER),
      deps.callbackSecret,
      Date.now(),
    );
    if (!ok) {
      deps.health.signatureFailed();
      throw errors.invalidSignature();
    }
    deps.health.received();
    const body = parseOrThrow(providerCallbackBody, req.body, 'callback body');
    if (!body.charge && !body.boleto)
      throw errors.validation('callback body is invalid', {
        fields: [{ field: 'charge', message: 'charge or boleto is required' }],
      });
    const event = body as unknown as ProviderEvent;
    const outcome = await deps.service.handle(event);
    res.json({ received: true, outcome });
  };
  router.post('/', receive);
  // Public like the callback itself (the provider and uptime checks read it): platform-wide
  // figures only, no merchant data.
  router.get('/health', async (_req, res) => {
    res.json({ ok: true, timestamp: new Date().toISOString(), ...(await deps.health.report()) });
  });
  return router;
}
