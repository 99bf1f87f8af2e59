/**
 * A delivery's first attempt, made by the worker whose transaction committed its event, right
 * after the commit: no dispatcher round, no workflow start, no task through the server. A paid
 * charge's webhook costs one signed POST and one row update when the receiver answers 2xx; only a
 * delivery whose first attempt did not deliver gets a WebhookDelivery workflow, which reads that
 * attempt as recorded and goes on with the retry schedule.
 *
 * The attempt is leased: recordEvents writes `lease_expires_at` in the committing transaction
 * (db/migrations/0031_delivery_lease.ts), and the dispatcher's sweep leaves a leased delivery
 * alone until then. A worker that dies between the commit and the send (or the workflow start)
 * leaves an expired lease, and the sweep starts the delivery's workflow as for any other: the
 * outbox stays the durable path. Attempts are keyed (delivery, attempt number), so a lease that
 * expires while its send is still under way costs the receiver at most a duplicate (same
 * `webhook-id`), never a lost event.
 *
 * Activities reach their worker's first attempts through an AsyncLocalStorage scope that
 * createActivities opens around each activity (activities/index.ts): recordEvent is called
 * deep inside every domain's transactions with nothing but the transaction.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import { deliveryStore, startDeliveryWorkflow } from '../../db/events';
import type { AttemptOutcome } from '../../workflows/events/definitions';

/** Long enough for one attempt (the receiver has DELIVERY_TIMEOUT_MS, 10 s) and its record. */
export const DEFAULT_LEASE_SECONDS = 30;
/**
 * Sends in flight per worker beyond which new deliveries are not leased (their workflows send
 * them, bounded by the worker's task slots): slow receivers must not pile up unbounded sockets.
 */
const MAX_IN_FLIGHT = 200;

export interface FirstAttempts {
  /** The lease to write for new deliveries now, or null when this worker takes no more. */
  leaseSeconds(): number | null;
  /** Makes delivery's attempt 1; answers false when it could not (lease released: the sweep takes it). */
  send(delivery: { id: string; merchantId: string }, ctx: Context): Promise<boolean>;
}

export function createFirstAttempts(deps: {
  sequelize: Sequelize;
  attemptDelivery: (args: { deliveryId: string; attempt: number }) => Promise<AttemptOutcome>;
  leaseSeconds?: number;
}): FirstAttempts {
  const lease = deps.leaseSeconds ?? DEFAULT_LEASE_SECONDS;
  let inFlight = 0;
  return {
    leaseSeconds: () => (inFlight < MAX_IN_FLIGHT ? lease : null),
    async send(delivery, ctx) {
      inFlight++;
      try {
        const { outcome } = await deps.attemptDelivery({ deliveryId: delivery.id, attempt: 1 });
        if (outcome === 'DELIVERED') return true;
        // Not delivered (or the endpoint was disabled meanwhile): the workflow takes it from here.
        await startDeliveryWorkflow(
          deps.sequelize,
          ctx.client.workflow,
          { id: delivery.id, merchantId: delivery.merchantId, taskQueue: ctx.info.taskQueue },
          { eager: true },
        );
        return true;
      } catch {
        await deliveryStore.releaseLease(deps.sequelize, delivery.id).catch(() => undefined);
        return false;
      } finally {
        inFlight--;
      }
    },
  };
}

const scope = new AsyncLocalStorage<FirstAttempts>();

/** This activity's worker's first attempts; undefined outside an activity built by createActivities. */
export function currentFirstAttempts(): FirstAttempts | undefined {
  return scope.getStore();
}

/** The same activities, each running inside `firstAttempts`' scope. */
export function withFirstAttempts<A extends Record<string, unknown>>(activities: A, firstAttempts: FirstAttempts): A {
  return Object.fromEntries(
    Object.entries(activities).map(([name, fn]) => [
      name,
      typeof fn === 'function'
        ? (...args: unknown[]) => scope.run(firstAttempts, () => (fn as (...a: unknown[]) => unknown)(...args))
        : fn,
    ]),
  ) as A;
}
