/**
 * Webhook delivery activities. `dispatchOutbox` turns committed events into deliveries (one per
 * subscribed active endpoint) and starts one WebhookDelivery workflow each; `attemptDelivery`
 * makes one signed POST and records it; `completeDelivery` closes a delivery that will not be
 * tried again; the replay's steps (replay.ts) give a re-enabled endpoint what it missed. Each is
 * safe to retry: rows are keyed, attempts are numbered.
 *
 * This file is the list of the domain's activities; each lives in its own file and takes its
 * dependencies as its first parameter.
 */
import { attemptDelivery } from './attemptDelivery';
import { completeDelivery, scheduleNextAttempt } from './completeDelivery';
import { dispatchOutbox } from './dispatchOutbox';
import { cancelDeliveries, prepareReplay, startDelivery } from './replay';
import { sweepExpired } from './sweepExpired';
import type { WebhookActivityDeps } from './deps';

export function createWebhookActivities(deps: WebhookActivityDeps) {
  return {
    dispatchOutbox: (args: Parameters<typeof dispatchOutbox>[1]) => dispatchOutbox(deps, args),
    attemptDelivery: (args: Parameters<typeof attemptDelivery>[1]) => attemptDelivery(deps, args),
    scheduleNextAttempt: (args: Parameters<typeof scheduleNextAttempt>[1]) => scheduleNextAttempt(deps, args),
    completeDelivery: (args: Parameters<typeof completeDelivery>[1]) => completeDelivery(deps, args),
    sweepExpired: () => sweepExpired(deps),
    prepareReplay: (args: Parameters<typeof prepareReplay>[1]) => prepareReplay(deps, args),
    startDelivery: (args: Parameters<typeof startDelivery>[1]) => startDelivery(deps, args),
    cancelDeliveries: (args: Parameters<typeof cancelDeliveries>[1]) => cancelDeliveries(deps, args),
  };
}

export type WebhookActivities = ReturnType<typeof createWebhookActivities>;
