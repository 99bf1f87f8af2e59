/** What the subscription activities run with, and the lookups every one of them starts from. */
import { ApplicationFailure } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import type { FeeSchedule } from '../../core/money';
import { receiverAccountOf } from '../../core/pixAutomatico/receiver';
import type { ReceiverAccount } from '../../core/pixAutomatico/types';
import { ProviderError, platformOnly, type RecurrenceProvider } from '../../core/provider';
import { pspConnectionStore } from '../../db/connections';
import { subscriptionStore, type StoredCycle, type StoredSubscription } from '../../db/subscriptions';
import { chargeDeps, type ChargeDeps } from '../charges/deps';
import type { ChargeActivityDeps } from '../charges';
import { checkoutBaseUrl } from '../checkouts/checkoutEffects';
import { toActivityFailure } from '../charges/providerErrors';

export interface SubscriptionActivityDeps extends ChargeActivityDeps {
  /** config.pixApi.automaticoReceiver: where a cycle charge on the platform's account pays into (a connection's: its row). */
  automaticoReceiver?: ReceiverAccount | null;
  /** DEFAULT_PIX_FEE_*: a cycle's fee for a merchant without its own schedule. */
  defaultPixFee?: FeeSchedule;
}

/** The failure types the workflow may see (non-retryable). */
export const SubscriptionFailureTypes = {
  unavailable: 'SubscriptionsUnavailable',
  notFound: 'SubscriptionNotFound',
  providerRejected: 'SubscriptionProviderRejected',
} as const;

/** config.ts's DEFAULT_PIX_FEE_BPS / _FIXED_CENTS defaults, for a worker built without them (tests). */
const FALLBACK_FEE: FeeSchedule = { bps: 99, fixedCents: 0 };

export interface SubscriptionDeps {
  sequelize: Sequelize;
  /** The charge activities' deps: the one credit of a Pix payment (creditPayment) runs with them. */
  charges: ChargeDeps;
  publicBaseUrl: string;
  receiver: ReceiverAccount | null;
  defaultFee: FeeSchedule;
}

export function subscriptionDeps(deps: SubscriptionActivityDeps): SubscriptionDeps {
  return {
    sequelize: deps.sequelize,
    charges: chargeDeps({ ...deps, accounts: deps.accounts ?? platformOnly(deps.provider) }),
    publicBaseUrl: checkoutBaseUrl(deps),
    receiver: deps.automaticoReceiver ?? null,
    defaultFee: deps.defaultPixFee ?? FALLBACK_FEE,
  };
}

export async function subscriptionOf(deps: SubscriptionDeps, id: string): Promise<StoredSubscription> {
  const row = await subscriptionStore.findSubscription(deps.sequelize, id);
  if (!row) throw ApplicationFailure.nonRetryable(`subscription ${id} not found`, SubscriptionFailureTypes.notFound);
  return row;
}

export async function cycleOf(deps: SubscriptionDeps, subscriptionId: string, cycle: number): Promise<StoredCycle> {
  const row = await subscriptionStore.findCycle(deps.sequelize, subscriptionId, cycle);
  if (!row)
    throw ApplicationFailure.nonRetryable(
      `cycle ${cycle} of subscription ${subscriptionId} not found`,
      SubscriptionFailureTypes.notFound,
    );
  return row;
}

/** The recurrence's PSP account's Pix Automático; an account without it refuses subscriptions for good. */
export async function recurrencesOf(
  deps: SubscriptionDeps,
  row: Pick<StoredSubscription, 'id' | 'pspConnectionId'>,
): Promise<RecurrenceProvider> {
  const account = await atProvider(() => deps.charges.accounts.forConnection(row.pspConnectionId));
  if (!account.recurrences)
    throw ApplicationFailure.nonRetryable(
      `the PSP account of subscription ${row.id} offers no Pix Automático`,
      SubscriptionFailureTypes.unavailable,
    );
  return account.recurrences;
}

/**
 * The account a subscription's cycle charges pay into (the cobr's `recebedor`), by its recurrence's
 * PSP account: the platform's configured one, or its connection's own (core/pixAutomatico/receiver.ts).
 * None known refuses the subscription for good (SubscriptionsUnavailable): at its creation and at
 * each cycle's issue.
 */
export async function receiverOf(
  deps: SubscriptionDeps,
  row: Pick<StoredSubscription, 'pspConnectionId'>,
): Promise<ReceiverAccount> {
  const connectionId = row.pspConnectionId;
  const decision =
    connectionId === null
      ? receiverAccountOf({ kind: 'platform', configured: deps.receiver })
      : receiverAccountOf({
          kind: 'connected',
          connectionId,
          accountNumber:
            (await pspConnectionStore.findConnectionById(deps.sequelize, connectionId))?.account_number ?? null,
        });
  if (!decision.ok) throw ApplicationFailure.nonRetryable(decision.reason, SubscriptionFailureTypes.unavailable);
  return decision.receiver;
}

/**
 * A PSP call with its errors as the activity's failures: transient ones retried, a connection
 * revoked or required and a refusal non-retryable (the charge activities' own mapping).
 */
export async function atProvider<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof ProviderError) throw toActivityFailure(err);
    throw err;
  }
}
