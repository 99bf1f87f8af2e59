/** The settle and release of one refund's row (transferSteps.ts states the rules), and its charge.refunded event. */
import type { Transaction } from 'sequelize';
import { movements, refundMoney, release, settle } from '../../core/ledger/postings';
import { paidMoney } from '../../core/refunds/paid';
import { chargeStore } from '../../db/charges';
import { refundStore, type Refund } from '../../db/refunds';
import { recordEvent } from '../events/outbox';
import { settleOrReleaseOne, type ReservedRow, type TransferDecision } from '../transfers/transferSteps';
import type { RefundDeps } from './deps';

/** PARKED: reserved, but the merchant was frozen or deactivated since; nothing sent, look again later. */
export type RefundStepOutcome = 'SUCCEEDED' | 'FAILED' | 'SKIPPED' | 'UNCONFIRMED' | 'PARKED';

/** Settled: money out (SUCCEEDED, charge.refunded); released: shares back (FAILED); SKIPPED when it had moved already. */
export async function settleOrReleaseRefund(
  deps: RefundDeps,
  refundId: string,
  decision: TransferDecision,
): Promise<RefundStepOutcome> {
  const done = await settleOrReleaseOne(deps.sequelize, reservedRefund(deps, refundId), decision);
  if (!done?.moved) return 'SKIPPED';
  return decision.kind === 'SETTLE' ? 'SUCCEEDED' : 'FAILED';
}

/** The refund's money as the ledger posts it: its amount and who gives back which share. */
export function refundMoneyOf(refund: Refund) {
  return refundMoney({ merchantId: refund.merchantId, amountCents: refund.amountCents, shares: refund.shares });
}

/** The settle and release steps of one refund's row (transferSteps.ts). */
function reservedRefund(deps: RefundDeps, refundId: string): ReservedRow<Refund> {
  return {
    lock: (transaction) => refundStore.lockRefund(refundId, transaction),
    stateOf: (r) => (r.status === 'PROCESSING' ? 'RESERVED' : r.status === 'SUCCEEDED' ? 'SETTLED' : 'RELEASED'),
    apply: applyDecision,
    entry: (refund, decision) => {
      const keys = movements.refund(refund.id);
      return decision.kind === 'SETTLE'
        ? settle(keys.settle, refundMoneyOf(refund))
        : release(keys.release, refundMoneyOf(refund).shares);
    },
    recorded: async (refund, decision, transaction) => {
      if (decision.kind === 'SETTLE') await refundedEvent(deps, refund, transaction);
    },
    describe: (refund) => `refund ${refund.id} is ${refund.status}`,
    conflictType: 'RefundStateConflict',
  };
}

async function applyDecision(refund: Refund, decision: TransferDecision, transaction: Transaction): Promise<void> {
  const now = new Date();
  if (decision.kind === 'SETTLE') {
    await refundStore.updateRefund(
      refund,
      {
        status: 'SUCCEEDED',
        settledAt: now,
        providerTransferId: decision.providerTransferId,
        endToEndId: decision.endToEndId,
        failureCode: null,
        failureReason: null,
      },
      transaction,
    );
    return;
  }
  await refundStore.updateRefund(
    refund,
    {
      status: 'FAILED',
      releasedAt: now,
      providerTransferId: decision.providerTransferId,
      failureCode: decision.failure.code,
      failureReason: decision.failure.reason,
    },
    transaction,
  );
}

async function refundedEvent(deps: RefundDeps, refund: Refund, transaction: Transaction): Promise<void> {
  const charge = await chargeStore.findCharge(refund.chargeId, transaction);
  if (!charge) return;
  const refundedAmountCents = await refundStore.refundTotal(deps.sequelize, charge.id, 'succeeded', transaction);
  // Fully refunded: the checkout it backs (if any) is REFUNDED and its enrolments revoked.
  if (refundedAmountCents >= paidMoney(charge).amountCents)
    await deps.checkouts.refunded({ chargeId: charge.id }, transaction);
  await recordEvent(
    {
      type: 'charge.refunded',
      merchantId: charge.merchantId,
      aggregateType: 'charge',
      aggregateId: charge.id,
      dedupKey: `charge.refunded:${refund.id}`,
      payload: {
        chargeId: charge.id,
        refundId: refund.id,
        amountCents: refund.amountCents,
        refundedAmountCents,
        remainingAmountCents: paidMoney(charge).amountCents - refundedAmountCents,
        reason: refund.reason,
        endToEndId: refund.endToEndId,
        refundedAt: refund.settledAt?.toISOString() ?? null,
      },
    },
    transaction,
  );
}
