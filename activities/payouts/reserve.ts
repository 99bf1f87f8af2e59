/**
 * A batch's reserve: its whole funding (amount + fee of every item) in one ledger entry, or nothing;
 * from a connected merchant's own account, never more than that account holds (boundByPspBalance).
 */
import { ApplicationFailure } from '@temporalio/activity';
import { payoutRefusal, type PayoutRefusal } from '../../core/payouts/refusal';
import { pspCanFund } from '../../core/connections/pspBalance';
import { accounts } from '../../core/ledger/accounts';
import { movements, reserve } from '../../core/ledger/postings';
import { balanceReadingStore } from '../../db/connections';
import { balanceStore } from '../../db/ledger';
import type { Tx } from '../../db/tx';
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
        await boundByPspBalance(deps, batch, funding, transaction);
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
 * A batch sent from a connected merchant's own account never reserves more than that account
 * holds by its last balance reading (core/connections/pspBalance.ts pspCanFund), besides the
 * ledger's own check: a saldo below the mirror (a PSP's tariff, a block or a devolução the ledger
 * never saw) would otherwise let the batch reserve money the PSP then refuses to send. Under the
 * merchant's row lock, as every reservation of its money. Before the first reading, the ledger's
 * check alone (no number is invented).
 */
async function boundByPspBalance(
  deps: PayoutDeps,
  batch: PayoutBatch,
  funding: number,
  transaction: Tx,
): Promise<void> {
  if (!batch.pspConnectionId) return;
  const reading = await balanceReadingStore.readingOf(deps.sequelize, batch.pspConnectionId, transaction);
  if (!reading) return;
  const ledger = await balanceStore.merchantBalances(deps.sequelize, batch.merchantId, transaction);
  if (!pspCanFund(ledger.availableCents, reading, funding))
    throw new InsufficientBalanceError(accounts.merchantAvailable(batch.merchantId));
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
