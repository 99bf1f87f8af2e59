/**
 * Check 2: every `charge.paid` event reached each endpoint of its merchant that was subscribed
 * and enabled when the event was dispatched (the dispatcher's own rule, db/events/deliveryStore.ts
 * insertDeliveriesOfSql), as a SUCCEEDED delivery; and once quiet nothing waits: no outbox event
 * left undispatched, no delivery PENDING without a reason. An endpoint disabled since (a 410, too
 * many failures), a delivery whose retries ran out, or one still retrying on its schedule because
 * its receiver keeps failing (500, no answer) is the merchant's to fix: a note, not a discrepancy.
 * A PENDING delivery never tried, or whose next attempt is long overdue, is one: it is stuck.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import type { AuditCheck, AuditOptions, Discrepancy } from './types';

export async function auditWebhooks(deps: { sequelize: Sequelize }, opts: AuditOptions): Promise<AuditCheck> {
  const { sequelize } = deps;
  const since = opts.since ?? new Date(0);
  const select = <T extends object>(sql: string) =>
    sequelize.query<T>(sql, { replacements: { since }, type: QueryTypes.SELECT });
  const discrepancies: Discrepancy[] = [];
  const notes: string[] = [];

  const undispatched = await select<{ id: string; type: string; aggregate_id: string }>(
    `SELECT id, type, aggregate_id FROM outbox_events WHERE dispatched_at IS NULL AND created_at >= :since ORDER BY created_at, id`,
  );
  for (const e of undispatched)
    discrepancies.push({ row: `outbox_event:${e.id}`, problem: `${e.type} of ${e.aggregate_id} never dispatched` });

  const now = opts.now ?? new Date();
  const pending = await select<{
    id: string;
    event_type: string;
    webhook_id: string;
    attempts: number;
    last_status_code: number | null;
    last_error: string | null;
    next_attempt_at: Date | null;
  }>(
    `SELECT id, event_type, webhook_id, attempts, last_status_code, last_error, next_attempt_at
       FROM webhook_deliveries WHERE status = 'PENDING' AND created_at >= :since ORDER BY created_at, id`,
  );
  let retrying = 0;
  for (const d of pending) {
    if (retryingOnSchedule(d, now)) {
      retrying++;
      continue;
    }
    discrepancies.push({
      row: `webhook_delivery:${d.id}`,
      problem: `${d.event_type} to endpoint ${d.webhook_id} still PENDING (${d.attempts} attempts${d.next_attempt_at ? `, next due ${new Date(d.next_attempt_at).toISOString()}` : ', none scheduled'})`,
    });
  }
  if (retrying > 0)
    notes.push(
      `${retrying} deliveries still retrying on their schedule: their receivers keep failing (5xx, no answer)`,
    );

  // Each (charge.paid event, endpoint that should have had it) and what became of it.
  const owed = await select<{
    event_id: string;
    charge_id: string;
    webhook_id: string;
    active: boolean;
    disabled_reason: string | null;
    succeeded: string;
    statuses: string[];
  }>(
    `SELECT e.id AS event_id, e.aggregate_id AS charge_id, w.id AS webhook_id, w.active, w.disabled_reason,
            count(d.id) FILTER (WHERE d.status = 'SUCCEEDED') AS succeeded,
            array_remove(array_agg(d.status), NULL) AS statuses
       FROM outbox_events e
       JOIN webhook_endpoints w ON w.merchant_id = e.merchant_id AND e.type = ANY(w.events)
            AND (w.charge_id IS NULL OR w.charge_id::text = e.aggregate_id)
            AND w.created_at <= COALESCE(e.dispatched_at, now())
       LEFT JOIN webhook_deliveries d ON d.event_id = e.id AND d.webhook_id = w.id
      WHERE e.type = 'charge.paid' AND e.created_at >= :since
      GROUP BY e.id, e.aggregate_id, w.id, w.active, w.disabled_reason
      ORDER BY e.id, w.id`,
  );
  // Not delivered for the merchant's reason (its endpoint disabled, retries run out): one note per endpoint and reason.
  const undelivered = new Map<string, number>();
  const note = (key: string) => undelivered.set(key, (undelivered.get(key) ?? 0) + 1);
  for (const o of owed) {
    if (Number(o.succeeded) > 0) continue;
    const what = `charge.paid of charge ${o.charge_id} (event ${o.event_id}) to endpoint ${o.webhook_id}`;
    if (!o.active) note(`endpoint ${o.webhook_id} is disabled (${o.disabled_reason ?? 'no reason'})`);
    else if (o.statuses.some((s) => s === 'FAILED' || s === 'CANCELLED'))
      note(`endpoint ${o.webhook_id}: deliveries ${o.statuses.join('/')} (retries exhausted or cancelled)`);
    else if (o.statuses.length === 0)
      discrepancies.push({ row: `outbox_event:${o.event_id}`, problem: `${what}: no delivery made` });
    // A PENDING delivery is listed above already.
  }
  for (const [why, count] of undelivered) notes.push(`${count} charge.paid not delivered: ${why}`);

  const [counted] = await select<{ events: string }>(
    `SELECT count(*) AS events FROM outbox_events WHERE created_at >= :since`,
  );
  if (owed.length > 0) notes.unshift(`${owed.length} charge.paid deliveries owed to subscribed endpoints`);
  return { check: 'webhooks', examined: Number(counted.events), discrepancies, notes };
}

/** How late a scheduled retry may be before the delivery counts as stuck (the dispatcher's rounds, a busy worker). */
const OVERDUE_MS = 10 * 60_000;

/** Tried, the receiver failed the last attempt, and the next one is scheduled and not long overdue. */
function retryingOnSchedule(
  d: { attempts: number; last_status_code: number | null; last_error: string | null; next_attempt_at: Date | null },
  now: Date,
): boolean {
  const receiverFailed = d.last_error !== null || (d.last_status_code !== null && d.last_status_code >= 300);
  return (
    d.attempts > 0 &&
    receiverFailed &&
    d.next_attempt_at !== null &&
    new Date(d.next_attempt_at).getTime() > now.getTime() - OVERDUE_MS
  );
}
