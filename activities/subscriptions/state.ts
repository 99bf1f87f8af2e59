/**
 * The subscription's rows as its workflow moves it: the row and its PENDING enrolment with
 * subscription.created; each new state with its enrolment's and its event, in one transaction;
 * journey 3's first cycle, paid by the charge that authorised the recurrence.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Transaction } from 'sequelize';
import { enrolmentAccess, type CancelledBy, type SubscriptionState } from '../../core/subscriptions/states';
import { presentSubscription } from '../../core/subscriptions/view';
import { chargeStore } from '../../db/charges';
import { enrolmentStore } from '../../db/marketplace';
import { subscriptionStore } from '../../db/subscriptions';
import type { SubscriptionLifecycleInput } from '../../workflows/subscriptions/types';
import { recordEvent } from '../events/outbox';
import type { SubscriptionEventName } from './contract';
import { atProvider, SubscriptionFailureTypes, type SubscriptionDeps } from './deps';

const ENDED: readonly SubscriptionState[] = ['CANCELLED', 'REFUSED', 'EXPIRED'];
const AUTHORISED: readonly SubscriptionState[] = ['AUTHORISED', 'ACTIVE', 'PAST_DUE', 'SUSPENDED'];

export async function recordSubscription(deps: SubscriptionDeps, input: SubscriptionLifecycleInput): Promise<void> {
  const pspConnectionId = await accountOf(deps, input);
  await deps.sequelize.transaction(async (transaction) => {
    const created = await subscriptionStore.insertSubscription(
      deps.sequelize,
      {
        id: input.subscriptionId,
        merchantId: input.merchantId,
        courseId: input.courseId,
        priceId: input.priceId,
        journey: input.journey,
        interval: input.interval,
        retryPolicy: input.retryPolicy,
        amountCents: input.amountCents,
        firstDueDate: input.firstDueDate,
        lastDueDate: input.lastDueDate,
        payerName: input.payer.name,
        payerDocument: input.payer.document,
        payerAccount: input.payerAccount,
        pspConnectionId,
        firstChargeId: input.firstChargeId,
        externalId: input.externalId,
        metadata: input.metadata,
        returnUrl: input.returnUrl,
        idempotencyKey: input.idempotencyKey,
      },
      transaction,
    );
    if (!created) return;
    await enrolmentStore.enrolForSubscription(
      deps.sequelize,
      {
        merchantId: input.merchantId,
        courseId: input.courseId,
        subscriptionId: input.subscriptionId,
        studentName: input.payer.name,
        studentDocument: input.payer.document,
      },
      transaction,
    );
    await emit(deps, input.subscriptionId, 'subscription.created', null, transaction);
  });
}

/** The PSP account the recurrence lives at: the first charge's (journey 3), else the merchant's now. */
async function accountOf(deps: SubscriptionDeps, input: SubscriptionLifecycleInput): Promise<string | null> {
  if (input.firstChargeId) {
    const at = await chargeStore.chargeAccountOf(deps.sequelize, input.firstChargeId);
    if (!at?.issued)
      throw ApplicationFailure.nonRetryable(
        `the first charge ${input.firstChargeId} of subscription ${input.subscriptionId} was never issued`,
        SubscriptionFailureTypes.notFound,
      );
    return at.pspConnectionId;
  }
  const account = await atProvider(() => deps.charges.accounts.forMerchant(input.merchantId));
  return account.connectionId;
}

export async function recordSubscriptionState(
  deps: SubscriptionDeps,
  args: {
    subscriptionId: string;
    state: SubscriptionState;
    event: SubscriptionEventName | null;
    cycle: number | null;
    cancelledBy?: CancelledBy | null;
    endingCode?: string | null;
  },
): Promise<void> {
  await deps.sequelize.transaction(async (transaction) => {
    const row = await subscriptionStore.lockSubscription(deps.sequelize, args.subscriptionId, transaction);
    if (!row)
      throw ApplicationFailure.nonRetryable(
        `subscription ${args.subscriptionId} not found`,
        SubscriptionFailureTypes.notFound,
      );
    await subscriptionStore.updateState(
      deps.sequelize,
      args.subscriptionId,
      {
        state: args.state,
        ended: ENDED.includes(args.state),
        authorised: AUTHORISED.includes(args.state),
        cancelledBy: args.cancelledBy ?? null,
        endingCode: args.endingCode ?? null,
      },
      transaction,
    );
    const { access } = enrolmentAccess(args.state);
    // A subscription never authorised leaves no enrolment behind: NONE is a CANCELLED enrolment.
    await enrolmentStore.setSubscriptionEnrolmentStatus(
      deps.sequelize,
      args.subscriptionId,
      access === 'NONE' ? 'CANCELLED' : access,
      transaction,
    );
    if (args.event) await emit(deps, args.subscriptionId, args.event, args.cycle, transaction);
  });
}

/** Journey 3: cycle 1 is the first charge's, PAID when it was (its own lifecycle credited it). */
export async function recordFirstCycle(
  deps: SubscriptionDeps,
  args: { subscriptionId: string; dueDate: string; settlementDate: string },
): Promise<void> {
  const row = await subscriptionStore.findSubscription(deps.sequelize, args.subscriptionId);
  if (!row?.firstChargeId)
    throw ApplicationFailure.nonRetryable(
      `subscription ${args.subscriptionId} has no first charge`,
      SubscriptionFailureTypes.notFound,
    );
  const charge = await chargeStore.findCharge(row.firstChargeId);
  if (charge?.status !== 'PAID')
    throw ApplicationFailure.nonRetryable(
      `the first charge of subscription ${args.subscriptionId} is not paid`,
      SubscriptionFailureTypes.notFound,
    );
  await deps.sequelize.transaction((transaction) =>
    subscriptionStore.insertCycleOnce(
      deps.sequelize,
      {
        subscriptionId: args.subscriptionId,
        cycle: 1,
        txid: null,
        chargeId: charge.id,
        dueDate: args.dueDate,
        settlementDate: args.settlementDate,
        status: 'PAID',
        paidAt: charge.paidAt,
      },
      transaction,
    ),
  );
}

/** The event, once per subscription, event and cycle, carrying the subscription as it now is. */
async function emit(
  deps: SubscriptionDeps,
  subscriptionId: string,
  type: SubscriptionEventName,
  cycle: number | null,
  transaction: Transaction,
): Promise<void> {
  const row = await subscriptionStore.findSubscription(deps.sequelize, subscriptionId, transaction);
  if (!row) return;
  const current = await subscriptionStore.currentCycle(deps.sequelize, subscriptionId, transaction);
  await recordEvent(
    {
      type,
      merchantId: row.merchantId,
      aggregateType: 'subscription',
      aggregateId: row.id,
      dedupKey: `${type}:${row.id}:${cycle ?? '-'}`,
      payload: { ...presentSubscription(row, current, deps.publicBaseUrl) },
    },
    transaction,
  );
}
