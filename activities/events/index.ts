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
import type { Sequelize } from 'sequelize';
import type { PrivateReceiver } from '../../core/net/destination';
import { attemptDelivery } from './attemptDelivery';
import { completeDelivery, scheduleNextAttempt } from './completeDelivery';
import { dispatchOutbox } from './dispatchOutbox';
import { cancelDeliveries, prepareReplay, startDelivery } from './replay';
import type { Lookup } from './sender';
import { sweepExpired } from './sweepExpired';

export interface WebhookActivityDeps {
  sequelize: Sequelize;
  /** Decrypts webhook secrets (the same key that encrypts client secrets). */
  secretsKey?: Buffer;
  /** Local receivers are allowed in development and tests only. */
  allowPrivateDestinations?: boolean;
  /** WEBHOOK_PRIVATE_RECEIVERS: private `ip:port`s delivered to all the same, for the merchants each names (production too). */
  privateReceivers?: readonly PrivateReceiver[];
  /** The resolver deliveries connect through (tests inject one); the system's by default. */
  lookup?: Lookup;
  /** WEBHOOK_FIRST_ATTEMPT_LEASE_SECONDS: how long a committing worker holds a first attempt (firstAttempts.ts). */
  firstAttemptLeaseSeconds?: number;
}

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
