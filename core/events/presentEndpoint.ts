/** The spec's Webhook object. The secret is only ever passed in on creation or rotation. */
export interface WebhookEndpointSource {
  id: string;
  merchantId: string;
  chargeId: string | null;
  url: string;
  events: string[];
  description: string | null;
  active: boolean;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export function presentWebhookEndpoint(w: WebhookEndpointSource, secret?: string): Record<string, unknown> {
  return {
    id: w.id,
    merchantId: w.merchantId,
    url: w.url,
    events: w.events,
    description: w.description,
    chargeId: w.chargeId,
    active: w.active,
    disabledReason: w.disabledReason,
    ...(secret !== undefined ? { secret } : {}),
    createdAt: w.createdAt.toISOString(),
    updatedAt: w.updatedAt.toISOString(),
  };
}
