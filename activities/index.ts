/**
 * Every activity the gateway worker registers, by domain, in one explicit list. A worker knows
 * its activities by name only, in one namespace: merged by object spread, two domains exporting
 * the same name would silently replace one another and a workflow would run the wrong one.
 * registerActivities refuses that, naming the activity and both domains, so a collision fails at
 * worker creation (workers/createWorker.ts) and in test/unit/activityRegistry.test.ts.
 */
import type { Logger } from 'pino';
import { createChargeActivities, createPixSweepActivities, type ChargeActivityDeps } from './charges';
import { createWithdrawalActivities } from './withdrawals';
import { createPayoutActivities } from './payouts';
import { createReconcileActivities } from './transfers/repair';
import { createSentPixActivities } from './transfers/sentPix';
import { createReconciliationActivities } from './reconciliations';
import { createRefundActivities } from './refunds';
import { createSplitSendActivities } from './splitSends';
import { createSettlementActivities } from './settlements/settlements';
import { createMedActivities } from './med';
import { createBoletoBatchActivities } from './boletos';
import { createWebhookActivities } from './events';
import type { WebhookActivityDeps } from './events/deps';
import { createFirstAttempts, withFirstAttempts } from './events/firstAttempts';
import { createMailActivities, type MailActivityDeps } from './mail/mail';
import { createConnectionActivities, type ConnectionActivityDeps } from './connections';
import { createSubscriptionActivities, type SubscriptionActivityDeps } from './subscriptions';

export type ActivityDeps = ChargeActivityDeps &
  Omit<WebhookActivityDeps, 'sequelize'> &
  Omit<MailActivityDeps, 'sequelize'> &
  Omit<ConnectionActivityDeps, 'sequelize'> &
  Omit<SubscriptionActivityDeps, keyof ChargeActivityDeps> & {
    /** The worker's logger (workers/main.ts makes it from config.log); activities log on children of it. */
    logger: Logger;
  };

/** One domain's activities, as its factory builds them. */
export interface DomainActivities {
  readonly domain: string;
  readonly activities: Readonly<Record<string, (...args: never[]) => unknown>>;
}

/** Each domain's activities: the list the worker registers. */
export function activitiesByDomain(deps: ActivityDeps) {
  return [
    { domain: 'charges', activities: createChargeActivities(deps) },
    { domain: 'charges (payment sweep)', activities: createPixSweepActivities(deps) },
    { domain: 'boletos', activities: createBoletoBatchActivities(deps) },
    { domain: 'refunds', activities: createRefundActivities(deps) },
    { domain: 'withdrawals', activities: createWithdrawalActivities(deps) },
    { domain: 'settlements', activities: createSettlementActivities(deps) },
    { domain: 'split sends', activities: createSplitSendActivities(deps) },
    { domain: 'payouts', activities: createPayoutActivities(deps) },
    { domain: 'transfers (repair)', activities: createReconcileActivities(deps) },
    { domain: 'transfers (sent Pix notices)', activities: createSentPixActivities(deps) },
    { domain: 'reconciliations', activities: createReconciliationActivities(deps) },
    { domain: 'med', activities: createMedActivities(deps) },
    { domain: 'events', activities: createWebhookActivities(deps) },
    { domain: 'mail', activities: createMailActivities(deps) },
    { domain: 'connections', activities: createConnectionActivities(deps) },
    { domain: 'subscriptions', activities: createSubscriptionActivities(deps) },
  ] as const satisfies readonly DomainActivities[];
}

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;

/** The domains' activities as one object by name; throws if two domains (or one twice) register a name. */
export function registerActivities<const L extends readonly DomainActivities[]>(
  domains: L,
): Intersection<L[number]['activities']> {
  const registered: Record<string, unknown> = {};
  const owner = new Map<string, string>();
  for (const { domain, activities } of domains) {
    for (const [name, activity] of Object.entries(activities)) {
      const first = owner.get(name);
      if (first !== undefined) {
        throw new Error(
          `activity '${name}' is registered by both ${first} and ${domain}: a worker knows activities by name only, rename one`,
        );
      }
      owner.set(name, domain);
      registered[name] = activity;
    }
  }
  return registered as Intersection<L[number]['activities']>;
}

/**
 * The worker's activities, each run inside the scope of its worker's first attempts: an event
 * committed by any of them gets its first delivery attempt straight from this worker
 * (activities/events/firstAttempts.ts).
 */
export function createActivities(deps: ActivityDeps) {
  const activities = registerActivities(activitiesByDomain(deps));
  const firstAttempts = createFirstAttempts({
    sequelize: deps.sequelize,
    attemptDelivery: activities.attemptDelivery,
    leaseSeconds: deps.firstAttemptLeaseSeconds,
  });
  return withFirstAttempts(activities, firstAttempts);
}

export type Activities = ReturnType<typeof createActivities>;
