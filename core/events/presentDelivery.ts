/** A webhook delivery and its attempts as the API shows them (pure). */
export interface DeliveryRow {
  id: string;
  event_id: string;
  event_type: string;
  webhook_id: string;
  url: string;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  resend_of: string | null;
  created_at: Date;
  completed_at: Date | null;
}

export interface AttemptRow {
  attempt: number;
  url: string;
  status_code: number | null;
  success: boolean;
  error: string | null;
  duration_ms: number;
  attempted_at: Date;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function presentDelivery(d: DeliveryRow, attempts?: AttemptRow[]) {
  return {
    id: d.id,
    eventId: d.event_id,
    eventType: d.event_type,
    webhookId: d.webhook_id,
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    lastStatusCode: d.last_status_code,
    lastError: d.last_error,
    nextAttemptAt: iso(d.next_attempt_at),
    resendOf: d.resend_of,
    createdAt: iso(d.created_at),
    completedAt: iso(d.completed_at),
    ...(attempts
      ? {
          attemptLog: attempts.map((a) => ({
            attempt: a.attempt,
            url: a.url,
            statusCode: a.status_code,
            success: a.success,
            error: a.error,
            durationMs: a.duration_ms,
            attemptedAt: iso(a.attempted_at),
          })),
        }
      : {}),
  };
}
