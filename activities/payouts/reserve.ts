/** A batch's reserve: its whole funding (amount + fee of every item) in one ledger entry, or nothing. */
import { ApplicationFailure } from '@temporalio/activity';
import { payoutRefusal, type PayoutRefusal } from '../../core/payouts/refusal';
import { movements, reserve } from '../../core/ledger/postings';
import { payoutStore, type PayoutBatch } from '../../db/payouts';
import { PayoutFailureTypes, type BatchReservation } from '../../workflows/payouts/types';
import { InsufficientBalanceError, writeLedgerEntry } from '../ledger/ledgerWriter';
import { lockMerchantForReserve } from '../transfers/transferSteps';
import { lockBatch } from './batchRows';
import type { PayoutDeps } from './deps';

/** The merchant may not pay out: thrown inside the reserve's transaction, so nothing is reserved. */
class PayoutRefused extends Error {
  constructor(readonly refusal: PayoutRefusal) {
    super(refusal);
  }
}

export async function reserveBatch(deps: PayoutDeps, args: { batchId: string }): Promise<BatchReservation> {
  const { sequelize } = deps;
  try {
    return await sequelize.transaction(async (transaction) => {
      const batch = await lockBatch(args.batchId, transaction);
      const funding = batch.totalAmountCents + batch.totalFeeCents;
      if (batch.status === 'CREATED') {
        await lockMerchantForReserve(transaction, batch.merchantId, (merchant) => {
          const refusal = merchant ? payoutRefusal(merchant) : 'MERCHANT_INACTIVE';
          if (refusal) throw new PayoutRefused(refusal);
        });
        const shares = [{ merchantId: batch.merchantId, cents: funding }];
        await writeLedgerEntry(sequelize, reserve(movements.payoutBatch(batch.id).reserve, shares), transaction);
        await payoutStore.updateBatch(batch, { status: 'PROCESSING' }, transaction);
      }
      return reservationOf(batch);
    });
  } catch (err) {
    if (!(err instanceof InsufficientBalanceError) && !(err instanceof PayoutRefused)) throw err;
    // Nothing was reserved: remove the staged batch so no trace of it stays, and free its key.
    await payoutStore.removeStagedBatch(args.batchId);
    if (err instanceof PayoutRefused)
      throw ApplicationFailure.nonRetryable(
        `the merchant may not pay out: ${err.refusal}`,
        PayoutFailureTypes.refused,
        err.refusal,
      );
    throw ApplicationFailure.nonRetryable(
      'available balance cannot fund the batch',
      PayoutFailureTypes.insufficientBalance,
    );
  }
}

/**
 * Makes a given-up reserve final: under the batch row lock (which a late reserve attempt takes
 * first too), a batch already reserved is reported as such; one still CREATED is removed, so no
 * late attempt can reserve it after the client was told nothing was reserved.
 */
export async function abandonReserve(
  deps: Pick<PayoutDeps, 'sequelize'>,
  args: { batchId: string },
): Promise<BatchReservation | null> {
  return deps.sequelize.transaction(async (transaction) => {
    const batch = await payoutStore.lockBatch(args.batchId, transaction);
    if (!batch) return null;
    if (batch.status === 'CREATED') {
      await payoutStore.removeBatch(batch, transaction);
      return null;
    }
    return reservationOf(batch);
  });
}

function reservationOf(batch: PayoutBatch): BatchReservation {
  return {
    batchId: batch.id,
    status: 'PROCESSING',
    totalAmountCents: batch.totalAmountCents,
    totalFeeCents: batch.totalFeeCents,
    totalFundingCents: batch.totalAmountCents + batch.totalFeeCents,
    itemsCount: batch.itemsCount,
  };
}
