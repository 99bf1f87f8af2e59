/**
 * The subscription workflow's activities (issue 39), as contract.ts declares them: one object
 * that satisfies SubscriptionActivities, registered by activities/index.ts as domain 'subscriptions'.
 */
import type { SubscriptionActivities } from './contract';
import { cancelAtProvider, createRecurrence, readRecurrence } from './recurrence';
import { failCycle, issueCycle, readCycle, requestCycleRetry, settleCycle } from './cycles';
import { recordFirstCycle, recordSubscription, recordSubscriptionState } from './state';
import { subscriptionDeps, type SubscriptionActivityDeps } from './deps';

export type { SubscriptionActivityDeps } from './deps';
export { SubscriptionFailureTypes } from './deps';
export { cycleChargeId } from './cycles';

export function createSubscriptionActivities(activityDeps: SubscriptionActivityDeps) {
  const deps = subscriptionDeps(activityDeps);
  return {
    recordSubscription: (input) => recordSubscription(deps, input),
    createRecurrence: (args) => createRecurrence(deps, args),
    readRecurrence: (args) => readRecurrence(deps, args),
    recordSubscriptionState: (args) => recordSubscriptionState(deps, args),
    recordFirstCycle: (args) => recordFirstCycle(deps, args),
    issueCycle: (args) => issueCycle(deps, args),
    readCycle: (args) => readCycle(deps, args),
    requestCycleRetry: (args) => requestCycleRetry(deps, args),
    settleCycle: (args) => settleCycle(deps, args),
    failCycle: (args) => failCycle(deps, args),
    cancelAtProvider: (args) => cancelAtProvider(deps, args),
  } satisfies SubscriptionActivities;
}
