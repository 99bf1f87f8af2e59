/**
 * The subscriptions domain's tables (issue 39): subscriptions and subscription_cycles, written by
 * subscriptionStore alone (the subscription's workflow, through activities/subscriptions). A
 * cycle's money is a row of charges (db/charges chargeStore.createCycleChargeOnce) and its
 * enrolment a row of enrolments (db/marketplace enrolmentStore), each written by its own owner.
 */
export * as subscriptionStore from './subscriptionStore';
export type { NewSubscription, StoredCycle, StoredSubscription } from './subscriptionStore';
export {
  noticeCycleCharges,
  noticeOutcomes,
  noticeRecurrences,
  type NoticeDeps,
  type NoticeOutcome,
  type NoticeScope,
} from './notices';
export * as subscriptionQueries from './subscriptionQueries';
export type { SubscriptionPageExtras } from './subscriptionQueries';
