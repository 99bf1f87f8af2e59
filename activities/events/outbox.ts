/**
 * Durable event outbox: events are written in the same DB transaction as the state change that
 * causes them, keyed so a retried activity records each event once, together with their webhook
 * deliveries (one per subscribed active endpoint).
 */
import crypto from 'node:crypto';
import type { Transaction } from 'sequelize';
import { Context } from '@temporalio/activity';
import { outboxStore } from '../../db/events';
import { workflowHandle } from '../../core/temporal/workflows';
import { dispatcherWorkflowId, outboxDispatcherWorkflow, outboxKickSignal } from '../../workflows/events/definitions';
import { currentFirstAttempts } from './firstAttempts';

export interface OutboxEventInput {
  type: string;
  merchantId: string;
  aggregateType: string;
  aggregateId: string;
  /** One event per key; default `<type>:<aggregateId>`. A charge's refunds each have their own event. */
  dedupKey?: string;
  payload: Record<string, unknown>;
}

/** At most one wake-up signal per dispatcher per this many ms from one worker process. */
const KICK_EVERY_MS = 250;
const kicks = new Map<string, { lastAt: number; scheduled: boolean }>();
/**
 * A commit with at most this many new events makes their first attempts itself; a bigger one (a
 * payout slice settles thousands) leaves them to the dispatcher's sweep, which starts their
 * workflows a page at a time.
 */
const DIRECT_DISPATCH_MAX_EVENTS = 10;

/**
 * Wakes this task queue's outbox dispatcher. Wake-ups are coalesced: a burst of commits (10,000
 * payout items) sends a few signals, not one each — a singleton workflow must never take one
 * signal per event. If a wake-up is lost the dispatcher's 2-second poll still finds the deliveries.
 */
function kickDispatcher(ctx: Context): void {
  const workflowId = dispatcherWorkflowId(ctx.info.taskQueue);
  const state = kicks.get(workflowId) ?? { lastAt: 0, scheduled: false };
  kicks.set(workflowId, state);
  if (state.scheduled) return; // a wake-up is already on its way and will see this commit
  const send = () => {
    state.scheduled = false;
    state.lastAt = Date.now();
    workflowHandle(ctx.client, outboxDispatcherWorkflow, workflowId)
      .signal(outboxKickSignal)
      .catch(() => undefined);
  };
  const wait = state.lastAt + KICK_EVERY_MS - Date.now();
  if (wait <= 0) return send();
  state.scheduled = true;
  setTimeout(send, wait).unref();
}

/** The current activity's context, or undefined outside an activity (e.g. a script). */
function activityContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

export async function recordEvent(event: OutboxEventInput, transaction: Transaction): Promise<void> {
  await recordEvents([event], transaction);
}

/**
 * Records many events in one statement (a payout slice settles hundreds of items at once), each
 * once per dedup key, with their deliveries. Once the transaction commits, a few deliveries get
 * their first attempt from this worker at once (activities/events/firstAttempts.ts), leased in
 * that same statement; many (or, outside an activity, any) are left to the dispatcher's sweep,
 * woken now, which starts their workflows.
 */
export async function recordEvents(events: OutboxEventInput[], transaction: Transaction): Promise<void> {
  if (events.length === 0) return;
  const sequelize = outboxStore.outboxDatabase();
  const ctx = activityContext();
  const firstAttempts = ctx && events.length <= DIRECT_DISPATCH_MAX_EVENTS ? currentFirstAttempts() : undefined;
  const leaseSeconds = firstAttempts?.leaseSeconds() ?? null;
  const deliveries = await outboxStore.insertEvents(
    sequelize,
    events.map((e) => ({
      id: crypto.randomUUID(),
      dedupKey: e.dedupKey ?? `${e.type}:${e.aggregateId}`,
      merchantId: e.merchantId,
      type: e.type,
      aggregateType: e.aggregateType,
      aggregateId: e.aggregateId,
      payload: e.payload,
    })),
    { leaseSeconds },
    transaction,
  );
  if (deliveries.length === 0 || !ctx) return; // outside an activity the dispatcher's 2-second poll finds them
  transaction.afterCommit(() => {
    if (!firstAttempts || leaseSeconds === null) return kickDispatcher(ctx);
    void Promise.all(deliveries.map((d) => firstAttempts.send(d, ctx))).then((sent) => {
      if (sent.includes(false)) kickDispatcher(ctx);
    });
  });
}
