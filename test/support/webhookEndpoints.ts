/**
 * A merchant's webhook endpoint written through its table's store, as the API stores one (an
 * active endpoint, its secret encrypted with `key`), for the workflow tests that need one
 * without going through the API.
 */
import crypto from 'node:crypto';
import { encryptSecret } from '../../core/crypto/secretBox';
import { createEndpointOnce } from '../../db/events/webhookEndpointStore';
import type { WebhookEndpoint } from '../../db/models';

export function createTestEndpoint(opts: {
  merchantId: string;
  url: string;
  events: string[];
  key: Buffer;
  secret?: string;
  id?: string;
}): Promise<WebhookEndpoint> {
  return createEndpointOnce({
    id: opts.id ?? crypto.randomUUID(),
    merchantId: opts.merchantId,
    chargeId: null,
    url: opts.url,
    events: opts.events,
    description: null,
    secretCiphertext: encryptSecret(opts.secret ?? 'whsec_test', opts.key),
    previousSecretCiphertext: null,
    previousSecretExpiresAt: null,
    disabledAt: null,
    disabledReason: null,
  });
}
