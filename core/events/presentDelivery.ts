/** A webhook delivery and its attempts as the API shows them (pure). Rows come from db/events/deliveryStore.ts. */
export interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  webhookId: string;
  url: string;
  status: string;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  resendOf: string | null;
  createdAt: Date;
  completedAt: Date | null;
}

export interface DeliveryAttempt {
  attempt: number;
  url: string;
  statusCode: number | null;
  success: boolean;
  error: string | null;
  durationMs: number;
  attemptedAt: Date;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function presentDelivery(d: Delivery, attempts?: DeliveryAttempt[]) {
  return {
    id: d.id,
    eventId: d.eventId,
    eventType: d.eventType,
    webhookId: d.webhookId,
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    nextAttemptAt: iso(d.nextAttemptAt),
    resendOf: d.resendOf,
    createdAt: iso(d.createdAt),
    completedAt: iso(d.completedAt),
    ...(attempts
      ? {
          attemptLog: attempts.map((a) => ({
            attempt: a.attempt,
            url: a.url,
            statusCode: a.statusCode,
            success: a.success,
            error: a.error,
            durationMs: a.durationMs,
            attemptedAt: iso(a.attemptedAt),
          })),
        }
      : {}),
  };
}
