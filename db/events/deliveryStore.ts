/**
 * The webhook_deliveries and webhook_delivery_attempts tables (each event sent to each endpoint,
 * and every try): their one writer and the way to read them. Rows come out camelCase (the
 * mappers below are the only ones).
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { Delivery, DeliveryAttempt } from '../../core/events/presentDelivery';

const COLUMNS = `id, event_id, event_type, webhook_id, url, status, attempts, last_status_code, last_error, next_attempt_at, resend_of, created_at, completed_at`;

interface DeliveryRow {
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

interface AttemptRow {
  attempt: number;
  url: string;
  status_code: number | null;
  success: boolean;
  error: string | null;
  duration_ms: number;
  attempted_at: Date;
}

function deliveryOf(r: DeliveryRow): Delivery {
  return {
    id: r.id,
    eventId: r.event_id,
    eventType: r.event_type,
    webhookId: r.webhook_id,
    url: r.url,
    status: r.status,
    attempts: r.attempts,
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    nextAttemptAt: r.next_attempt_at,
    resendOf: r.resend_of,
    createdAt: r.created_at,
    completedAt: r.completed_at,
  };
}

function attemptOf(a: AttemptRow): DeliveryAttempt {
  return {
    attempt: a.attempt,
    url: a.url,
    statusCode: a.status_code,
    success: a.success,
    error: a.error,
    durationMs: a.duration_ms,
    attemptedAt: a.attempted_at,
  };
}

/** The merchant's delivery; another merchant's is not found. */
export async function findDelivery(sequelize: Sequelize, merchantId: string, deliveryId: string) {
  const [row] = await sequelize.query<DeliveryRow>(
    `SELECT ${COLUMNS} FROM webhook_deliveries WHERE id = :deliveryId AND merchant_id = :merchantId`,
    {
      replacements: { deliveryId, merchantId },
      type: QueryTypes.SELECT,
    },
  );
  return row ? deliveryOf(row) : null;
}

export async function attemptsOf(sequelize: Sequelize, deliveryId: string): Promise<DeliveryAttempt[]> {
  const attempts = await sequelize.query<AttemptRow>(
    `SELECT attempt, url, status_code, success, error, duration_ms, attempted_at FROM webhook_delivery_attempts WHERE delivery_id = :deliveryId ORDER BY attempt`,
    { replacements: { deliveryId }, type: QueryTypes.SELECT },
  );
  return attempts.map(attemptOf);
}

/** A merchant's deliveries to one endpoint or of one event, newest first, one page, with the total. */
export async function listDeliveries(
  sequelize: Sequelize,
  of: { merchantId: string } & ({ webhookId: string } | { eventId: string }),
  q: { status?: string; limit: number; offset: number },
): Promise<{ deliveries: Delivery[]; total: number }> {
  const where =
    'webhookId' in of
      ? `merchant_id = :merchantId AND webhook_id = :webhookId`
      : `merchant_id = :merchantId AND event_id = :eventId`;
  const filter = q.status ? ` AND status = :status` : '';
  const rows = await sequelize.query<DeliveryRow>(
    `SELECT ${COLUMNS} FROM webhook_deliveries WHERE ${where}${filter} ORDER BY created_at DESC, id LIMIT :limit OFFSET :offset`,
    {
      replacements: { ...of, status: q.status, limit: q.limit, offset: q.offset },
      type: QueryTypes.SELECT,
    },
  );
  const [{ total }] = await sequelize.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM webhook_deliveries WHERE ${where}${filter}`,
    {
      replacements: { ...of, status: q.status },
      type: QueryTypes.SELECT,
    },
  );
  return { deliveries: rows.map(deliveryOf), total };
}

/** A new PENDING delivery `id` of the same event and body as `originalId`, to `url`, not started yet. */
export async function insertResend(sequelize: Sequelize, resend: { id: string; url: string; originalId: string }) {
  // The id is the resend's idempotency claim's: a resumed request finds its row, never makes a second.
  await sequelize.query(
    `INSERT INTO webhook_deliveries (id, event_id, webhook_id, merchant_id, event_type, url, body, status, resend_of, workflow_started)
     SELECT :id, event_id, webhook_id, merchant_id, event_type, :url, body, 'PENDING', id, FALSE FROM webhook_deliveries WHERE id = :originalId
     ON CONFLICT (id) DO NOTHING`,
    { replacements: resend },
  );
}

/** The delivery's workflow exists: the dispatcher's sweep leaves it alone. */
export async function markWorkflowStarted(sequelize: Sequelize, deliveryId: string): Promise<void> {
  await sequelize.query(`UPDATE webhook_deliveries SET workflow_started = TRUE WHERE id = :id`, {
    replacements: { id: deliveryId },
  });
}

/** Every delivery of the platform counted by status (metrics). */
export async function countByStatus(sequelize: Sequelize): Promise<{ status: string; count: number }[]> {
  const rows = await sequelize.query<{ status: string; n: string }>(
    'SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status',
    { type: QueryTypes.SELECT },
  );
  return rows.map((r) => ({ status: r.status, count: Number(r.n) }));
}

/**
 * A delivery's body, `{"eventId","type","createdAt","data"}`, from the event row `e` (columns id,
 * type, created_at, payload_text): the one place it is written, for every delivery of the event.
 */
function deliveryBodySql(e: string): string {
  return `'{"eventId":"' || ${e}.id::text || '","type":' || to_json(${e}.type)::text || ',"createdAt":"'
         || to_char(${e}.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '","data":' || ${e}.payload_text || '}'`;
}

/**
 * The one way deliveries are made from events: an INSERT … SELECT giving each event of the
 * relation `events` (columns id, merchant_id, type, aggregate_type, aggregate_id, payload_text,
 * created_at) one PENDING delivery per active endpoint subscribed to it (a charge's own webhook
 * only for that charge's events), once per (event, endpoint), RETURNING id, merchant_id. The body
 * is fixed here, once per event: every endpoint and every retry get the same bytes and eventId.
 * With `leaseSecondsParam` (a replacement's name) each delivery is leased to the committing worker
 * for its first attempt (db/migrations/0031_delivery_lease.ts).
 */
export function insertDeliveriesOfSql(events: string, leaseSecondsParam?: string): string {
  const lease = leaseSecondsParam ? `clock_timestamp() + make_interval(secs => :${leaseSecondsParam})` : 'NULL';
  return `INSERT INTO webhook_deliveries (id, event_id, webhook_id, merchant_id, event_type, url, body, status, lease_expires_at)
     SELECT gen_random_uuid(), e.id, w.id, e.merchant_id, e.type, w.url, ${deliveryBodySql('e')}, 'PENDING', ${lease}
     FROM ${events} e JOIN webhook_endpoints w ON w.merchant_id = e.merchant_id AND e.type = ANY(w.events) AND w.active
       AND (w.charge_id IS NULL OR (e.aggregate_type = 'charge' AND w.charge_id::text = e.aggregate_id))
     ORDER BY e.created_at, w.created_at, w.id
     ON CONFLICT (event_id, webhook_id) WHERE resend_of IS NULL DO NOTHING
     RETURNING id, merchant_id`;
}

/**
 * A re-enabled endpoint's replay deliveries (activities/events/replay.ts), one per event in the
 * given order, tagged with the replay's id: an event that had a delivery to it (CANCELLED by the
 * disable) gets a resend of it, one that had none its first. Started by the replay workflow one
 * after the other (workflow_started): the dispatcher's sweep leaves them alone.
 */
export async function insertReplayDeliveries(
  sequelize: Sequelize,
  replay: { replayId: string; webhookId: string; merchantId: string; url: string },
  events: { deliveryId: string; eventId: string; resendOf: string | null }[],
  transaction: Transaction,
): Promise<void> {
  if (events.length === 0) return;
  await sequelize.query(
    `INSERT INTO webhook_deliveries (id, event_id, webhook_id, merchant_id, event_type, url, body, status, resend_of, workflow_started, replay_id)
     SELECT x.delivery_id, e.id, :webhookId, :merchantId, e.type, :url, ${deliveryBodySql('e')}, 'PENDING', x.resend_of, TRUE, :replayId
     FROM unnest(ARRAY[:deliveryIds]::uuid[], ARRAY[:eventIds]::uuid[], ARRAY[:resendOfs]::uuid[]) AS x(delivery_id, event_id, resend_of)
       JOIN (SELECT id, type, created_at, payload::text AS payload_text FROM outbox_events) e ON e.id = x.event_id`,
    {
      replacements: {
        ...replay,
        deliveryIds: events.map((e) => e.deliveryId),
        eventIds: events.map((e) => e.eventId),
        resendOfs: events.map((e) => e.resendOf),
      },
      transaction,
    },
  );
}

/** Deliveries of events already in outbox_events (those an older worker left undispatched), in the caller's transaction. */
export async function createDeliveriesOf(
  sequelize: Sequelize,
  eventIds: string[],
  transaction: Transaction,
): Promise<{ id: string; merchantId: string }[]> {
  const created = await sequelize.query<{ id: string; merchant_id: string }>(
    `WITH events AS (SELECT id, merchant_id, type, aggregate_type, aggregate_id, payload::text AS payload_text, created_at
       FROM outbox_events WHERE id IN (:eventIds))
     ${insertDeliveriesOfSql('events')}`,
    { replacements: { eventIds }, type: QueryTypes.SELECT, transaction },
  );
  return created.map((c) => ({ id: c.id, merchantId: c.merchant_id }));
}

/**
 * PENDING deliveries whose workflow has not been started (also those a crash left behind) and
 * whose first-attempt lease, if any, has expired; oldest first, at most 500.
 */
export async function withoutWorkflow(sequelize: Sequelize): Promise<{ id: string; merchantId: string }[]> {
  const pending = await sequelize.query<{ id: string; merchant_id: string }>(
    `SELECT id, merchant_id FROM webhook_deliveries
     WHERE NOT workflow_started AND status = 'PENDING' AND (lease_expires_at IS NULL OR lease_expires_at < now())
     ORDER BY created_at LIMIT 500`,
    { type: QueryTypes.SELECT },
  );
  return pending.map((d) => ({ id: d.id, merchantId: d.merchant_id }));
}

/**
 * PENDING deliveries not handed over yet: neither delivered by their first attempt nor given a
 * workflow (leased or waiting for the sweep), and the age of the oldest in seconds (null when
 * none). The partial index webhook_deliveries_unstarted holds exactly these rows.
 */
export async function unstartedSummary(
  sequelize: Sequelize,
): Promise<{ pending: number; oldestAgeSeconds: number | null }> {
  const [row] = await sequelize.query<{ pending: string; oldest_age_seconds: number | null }>(
    `SELECT count(*) AS pending, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS oldest_age_seconds
     FROM webhook_deliveries WHERE NOT workflow_started AND status = 'PENDING'`,
    { type: QueryTypes.SELECT },
  );
  return { pending: Number(row?.pending ?? 0), oldestAgeSeconds: row?.oldest_age_seconds ?? null };
}

/** The committing worker could not finish the first attempt: the sweep may take the delivery now. */
export async function releaseLease(sequelize: Sequelize, deliveryId: string): Promise<void> {
  await sequelize.query(`UPDATE webhook_deliveries SET lease_expires_at = NULL WHERE id = :deliveryId`, {
    replacements: { deliveryId },
  });
}

/** What an attempt needs: the delivery's state and body, and its endpoint's URL, state and secrets. */
export async function forAttempt(sequelize: Sequelize, deliveryId: string, attempt: number) {
  // One round trip: the delivery, its endpoint, and attempt `attempt` if it was recorded already (a retried activity).
  const [d] = await sequelize.query<{
    status: string;
    body: string;
    event_id: string;
    webhook_id: string;
    merchant_id: string;
    url: string;
    active: boolean;
    secret_ciphertext: string;
    previous_secret_ciphertext: string | null;
    previous_secret_expires_at: Date | null;
    recorded_success: boolean | null;
    recorded_status_code: number | null;
    recorded_retry_after_ms: number | null;
  }>(
    `SELECT d.status, d.body, d.event_id, d.webhook_id, e.merchant_id, e.url, e.active, e.secret_ciphertext, e.previous_secret_ciphertext, e.previous_secret_expires_at,
       a.success AS recorded_success, a.status_code AS recorded_status_code, a.retry_after_ms AS recorded_retry_after_ms
     FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.webhook_id
       LEFT JOIN webhook_delivery_attempts a ON a.delivery_id = d.id AND a.attempt = :attempt
     WHERE d.id = :deliveryId`,
    { replacements: { deliveryId, attempt }, type: QueryTypes.SELECT },
  );
  if (!d) return null;
  return {
    status: d.status,
    body: d.body,
    eventId: d.event_id,
    webhookId: d.webhook_id,
    /** The endpoint's owner: the merchant whose private receivers (if any) it may reach. */
    merchantId: d.merchant_id,
    url: d.url,
    active: d.active,
    secretCiphertext: d.secret_ciphertext,
    previousSecretCiphertext: d.previous_secret_ciphertext,
    previousSecretExpiresAt: d.previous_secret_expires_at ? new Date(d.previous_secret_expires_at) : null,
    /** The outcome of attempt `attempt` if it was recorded already. */
    recorded:
      d.recorded_success === null
        ? null
        : { success: d.recorded_success, statusCode: d.recorded_status_code, retryAfterMs: d.recorded_retry_after_ms },
  };
}

/**
 * Records an attempt (once) and its effect on a PENDING delivery (SUCCEEDED on success), in one
 * statement; in the caller's transaction when given (the attempt's other effects, such as a 410's
 * disable, commit with it).
 */
export async function recordAttempt(
  sequelize: Sequelize,
  a: {
    deliveryId: string;
    attempt: number;
    url: string;
    statusCode: number | null;
    success: boolean;
    error: string | null;
    durationMs: number;
    retryAfterMs: number | null;
  },
  transaction?: Transaction,
): Promise<void> {
  await sequelize.query(
    `WITH recorded AS (
       INSERT INTO webhook_delivery_attempts (delivery_id, attempt, url, status_code, success, error, duration_ms, retry_after_ms)
       VALUES (:deliveryId, :attempt, :url, :statusCode, :success, :error, :durationMs, :retryAfterMs) ON CONFLICT DO NOTHING)
     UPDATE webhook_deliveries SET attempts = GREATEST(attempts, :attempt), last_status_code = :statusCode, last_error = :error,
         status = CASE WHEN :success THEN 'SUCCEEDED' ELSE status END,
         completed_at = CASE WHEN :success THEN now() ELSE completed_at END, updated_at = now()
       WHERE id = :deliveryId AND status = 'PENDING'`,
    { replacements: a, transaction },
  );
}

export async function scheduleNextAttempt(sequelize: Sequelize, deliveryId: string, at: string): Promise<void> {
  await sequelize.query(
    `UPDATE webhook_deliveries SET next_attempt_at = :at, updated_at = now() WHERE id = :deliveryId AND status = 'PENDING'`,
    { replacements: { deliveryId, at } },
  );
}

/** Closes a PENDING delivery (FAILED or CANCELLED); answers its endpoint, or null when it was not PENDING. */
export async function closeDelivery(
  sequelize: Sequelize,
  deliveryId: string,
  status: 'FAILED' | 'CANCELLED',
  transaction: Transaction,
): Promise<string | null> {
  const [row] = await sequelize.query<{ webhook_id: string }>(
    `UPDATE webhook_deliveries SET status = :status, completed_at = now(), next_attempt_at = NULL, updated_at = now()
     WHERE id = :deliveryId AND status = 'PENDING' RETURNING webhook_id`,
    { replacements: { deliveryId, status }, type: QueryTypes.SELECT, transaction },
  );
  return row?.webhook_id ?? null;
}

/** Since when the endpoint fails (its first failed attempt after its last success) and its last attempt. */
export async function failureOf(
  sequelize: Sequelize,
  webhookId: string,
  transaction: Transaction,
): Promise<{ failingSince: Date | null; lastStatusCode: number | null; lastError: string | null }> {
  const [row] = await sequelize.query<{
    failing_since: Date | null;
    last_status_code: number | null;
    last_error: string | null;
  }>(
    `WITH attempts AS (
       SELECT a.success, a.status_code, a.error, a.attempted_at FROM webhook_delivery_attempts a
       JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = :webhookId),
     last_success AS (SELECT max(attempted_at) AS at FROM attempts WHERE success),
     last_attempt AS (SELECT status_code, error FROM attempts ORDER BY attempted_at DESC LIMIT 1)
     SELECT (SELECT min(attempted_at) FROM attempts WHERE NOT success
               AND attempted_at > COALESCE((SELECT at FROM last_success), '-infinity')) AS failing_since,
            (SELECT status_code FROM last_attempt) AS last_status_code,
            (SELECT error FROM last_attempt) AS last_error`,
    { replacements: { webhookId }, type: QueryTypes.SELECT, transaction },
  );
  return {
    failingSince: row?.failing_since ? new Date(row.failing_since) : null,
    lastStatusCode: row?.last_status_code ?? null,
    lastError: row?.last_error ?? null,
  };
}
