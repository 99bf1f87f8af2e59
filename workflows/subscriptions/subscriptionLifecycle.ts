/** PLACEHOLDER (issue 39): the subscription's workflow; written on branch i39-flow. */
import type { SubscriptionLifecycleInput } from './types';

export async function subscriptionLifecycle(input: SubscriptionLifecycleInput): Promise<void> {
  throw new Error(`subscriptionLifecycle ${input.subscriptionId}: not written yet`);
}
