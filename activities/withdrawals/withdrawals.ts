/**
 * Withdrawal activities: the reservation, the provider transfer and the final ledger movement.
 * Each is idempotent: the transfer carries the withdrawal id as the provider's idempotency key,
 * DB writes lock the withdrawal row and are keyed by ledger movement key, so a retried activity
 * changes nothing twice, and a withdrawal is either completed or released, never both.
 */
import { recordEvent } from '../events/outbox';
import { presentWithdrawalRows } from '../../db/withdrawals/withdrawalView';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Sequelize, Transaction } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { moneyOutRefusal } from '../../core/identity/moneyOut';
import { withdrawalCompletedEntry, withdrawalReleasedEntry, withdrawalReservedEntry } from '../../core/ledger/postings';
import type { PixProvider, ProviderTransfer } from '../../core/provider';
import { NOT_PROCESSED, describeTransferFailure } from '../../core/transfers/failures';
import { beneficiarySnapshot, sourceAccountSnapshot, withdrawalFee } from '../../core/withdrawals/rules';
import { Merchant, Withdrawal } from '../../db/models';
import { PLATFORM_INSTITUTION } from '../../db/charges/sellerChargeView';
import {
  WithdrawalFailureTypes,
  type FailureNote,
  type ReservedWithdrawal,
  type SettlementTag,
  type TransferOutcome,
  type WithdrawalInput,
} from '../../workflows/withdrawals/types';
import { InsufficientBalanceError, balanceOf, writeLedgerEntry } from '../ledger/ledgerWriter';
import { createTransferPath } from '../transfers/transferPath';

export interface WithdrawalActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
}

export function createWithdrawalActivities(deps: WithdrawalActivityDeps) {
  const { sequelize, provider } = deps;
  const transfers = createTransferPath(provider);

  /** Stores the withdrawal and reserves amount + fee in one DB transaction, or refuses and stores nothing. */
  async function reserveWithdrawal(input: WithdrawalInput): Promise<ReservedWithdrawal> {
    let requiredCents = input.amountCents;
    try {
      return await sequelize.transaction(async (transaction) => {
        const existing = await Withdrawal.findByPk(input.withdrawalId, { transaction });
        if (existing) return reservedFrom(existing); // a retry after a commit whose answer was lost
        // Locked so an operator's freeze or key change lands wholly before or after this request.
        const merchant = await Merchant.findByPk(input.merchantId, { transaction, lock: transaction.LOCK.UPDATE });
        const held = moneyOutRefusal(merchant);
        if (!merchant || held === 'MERCHANT_INACTIVE')
          throw refusal('the merchant is not active', WithdrawalFailureTypes.merchantInactive);
        if (held === 'WITHDRAWAL_FROZEN')
          throw refusal('withdrawals are frozen for this merchant', WithdrawalFailureTypes.frozen);
        const beneficiary = beneficiarySnapshot(merchant);
        if (!beneficiary)
          throw refusal('the merchant has no Pix key registered for withdrawals', WithdrawalFailureTypes.pixKeyMissing);
        const feeCents = withdrawalFee(merchant);
        // "All available" is computed here, under the merchant lock, so no concurrent
        // reservation of this merchant can slip in between the read and the debit.
        const amountCents = input.allAvailable
          ? (await balanceOf(sequelize, accounts.merchantAvailable(merchant.id), transaction)) - feeCents
          : input.amountCents;
        requiredCents = Math.max(amountCents, 1) + feeCents;
        if (amountCents <= 0) throw new InsufficientBalanceError(accounts.merchantAvailable(merchant.id));
        const row = await Withdrawal.create(
          {
            id: input.withdrawalId,
            merchantId: merchant.id,
            userId: input.userId,
            amountCents,
            feeCents,
            totalDebitedCents: requiredCents,
            status: 'PROCESSING',
            description: input.description,
            idempotencyKey: input.idempotencyKey,
            partnerTxId: null,
            providerTransferId: null,
            providerEndToEndId: null,
            failureCode: null,
            failureReason: null,
            beneficiarySnapshot: beneficiary,
            sourceAccountSnapshot: sourceAccountSnapshot(merchant, PLATFORM_INSTITUTION),
            processedAt: null,
          },
          { transaction },
        );
        await writeLedgerEntry(sequelize, withdrawalReservedEntry(moneyOf(row)), transaction);
        if (input.settlement) await insertSettlement(sequelize, input.settlement, row, transaction);
        return reservedFrom(row);
      });
    } catch (err) {
      if (!(err instanceof InsufficientBalanceError)) throw err;
      const availableCents = await balanceOf(sequelize, accounts.merchantAvailable(input.merchantId));
      throw ApplicationFailure.create({
        message: 'the available balance does not cover the amount plus the withdrawal fee',
        type: WithdrawalFailureTypes.insufficientBalance,
        nonRetryable: true,
        details: [{ requiredCents, availableCents }],
      });
    }
  }

  /**
   * Sends the Pix transfer to the snapshotted key through the one transfer path (the
   * withdrawal id is the idempotency key). Null when the provider refused the call and has no
   * record of it: the workflow waits TRANSFER_GRACE and asks again before releasing anything.
   */
  async function sendWithdrawalTransfer(args: { withdrawalId: string }): Promise<TransferOutcome | null> {
    const withdrawal = await Withdrawal.findByPk(args.withdrawalId);
    if (!withdrawal || withdrawal.status !== 'PROCESSING' || !withdrawal.beneficiarySnapshot) {
      // Never send money for a withdrawal that is not waiting for it.
      throw ApplicationFailure.nonRetryable(
        `withdrawal ${args.withdrawalId} is not PROCESSING`,
        WithdrawalFailureTypes.stateConflict,
      );
    }
    const beneficiary = withdrawal.beneficiarySnapshot;
    const answer = await transfers.send(
      {
        reference: withdrawal.id,
        amountCents: withdrawal.amountCents,
        pixKey: beneficiary.pixKey,
        pixKeyType: beneficiary.pixKeyType,
        recipientName: beneficiary.name,
        recipientDocument: beneficiary.document,
      },
      // A later attempt may follow one whose answer was lost: the provider's record comes first.
      { retry: Context.current().info.attempt > 1 },
    );
    return answer.kind === 'NO_RECORD' ? null : outcomeOf(answer.transfer);
  }

  /** The provider's record of our transfer, or null when it has none. Retried until it answers. */
  async function findWithdrawalTransfer(args: { withdrawalId: string }): Promise<TransferOutcome | null> {
    const withdrawal = await Withdrawal.findByPk(args.withdrawalId);
    if (!withdrawal)
      throw ApplicationFailure.nonRetryable(
        `withdrawal ${args.withdrawalId} not found`,
        WithdrawalFailureTypes.stateConflict,
      );
    const answer = await transfers.lookup({ reference: withdrawal.id, amountCents: withdrawal.amountCents });
    return answer && answer.kind !== 'NO_RECORD' ? outcomeOf(answer.transfer) : null;
  }

  /** The money left: reserved → provider clearing (amount) and platform fees (fee). */
  async function completeWithdrawal(args: {
    withdrawalId: string;
    transfer: TransferOutcome;
  }): Promise<ReservedWithdrawal> {
    return sequelize.transaction(async (transaction) => {
      const withdrawal = await lockWithdrawal(args.withdrawalId, transaction);
      if (withdrawal.status === 'COMPLETED') return reservedFrom(withdrawal);
      if (withdrawal.status !== 'PROCESSING') {
        // The provider paid a withdrawal whose reserve was already returned: stop and alert.
        throw ApplicationFailure.nonRetryable(
          `withdrawal ${withdrawal.id} is ${withdrawal.status} but the provider completed it`,
          WithdrawalFailureTypes.stateConflict,
        );
      }
      await writeLedgerEntry(sequelize, withdrawalCompletedEntry(moneyOf(withdrawal)), transaction);
      await withdrawal.update(
        {
          status: 'COMPLETED',
          processedAt: new Date(),
          partnerTxId: withdrawal.id,
          providerTransferId: args.transfer.providerTransferId,
          providerEndToEndId: args.transfer.endToEndId,
        },
        { transaction },
      );
      await recordWithdrawalEvent('withdrawal.completed', withdrawal, transaction);
      return reservedFrom(withdrawal);
    });
  }

  /**
   * The money did not leave: the whole reserve goes back (reserved → available). Returns null
   * when there is no such withdrawal (a reservation that never committed).
   */
  async function failWithdrawal(args: {
    withdrawalId: string;
    status: 'FAILED' | 'CANCELLED';
    transfer: TransferOutcome | null;
    failure: FailureNote | null;
    /** Given when the workflow gives up reserving: with no row yet, a terminal one is written. */
    tombstone?: WithdrawalInput;
  }): Promise<ReservedWithdrawal | null> {
    return sequelize.transaction(async (transaction) => {
      const withdrawal = await Withdrawal.findByPk(args.withdrawalId, { transaction, lock: transaction.LOCK.UPDATE });
      if (!withdrawal) {
        // A durable give-up: a late reserve attempt finds this row (or hits its primary key)
        // and reserves nothing, so the client's "nothing was debited" stays true.
        if (args.tombstone) await writeTombstone(args.tombstone, transaction);
        return null;
      }
      if (withdrawal.status === 'FAILED' || withdrawal.status === 'CANCELLED') return reservedFrom(withdrawal);
      if (withdrawal.status === 'COMPLETED') {
        throw ApplicationFailure.nonRetryable(
          `withdrawal ${withdrawal.id} is COMPLETED and cannot be released`,
          WithdrawalFailureTypes.stateConflict,
        );
      }
      const failure = args.transfer
        ? describeTransferFailure(args.transfer.failureCode)
        : (args.failure ?? describeTransferFailure(null));
      await writeLedgerEntry(sequelize, withdrawalReleasedEntry(moneyOf(withdrawal)), transaction);
      await withdrawal.update(
        {
          status: args.status,
          processedAt: new Date(),
          failureCode: failure.code,
          failureReason: failure.reason,
          partnerTxId: args.transfer ? withdrawal.id : null,
          providerTransferId: args.transfer?.providerTransferId ?? null,
        },
        { transaction },
      );
      // A cancelled withdrawal did not pay out either: merchants get withdrawal.failed with status CANCELLED.
      await recordWithdrawalEvent('withdrawal.failed', withdrawal, transaction);
      return reservedFrom(withdrawal);
    });
  }

  return { reserveWithdrawal, sendWithdrawalTransfer, findWithdrawalTransfer, completeWithdrawal, failWithdrawal };
}

export type WithdrawalActivities = ReturnType<typeof createWithdrawalActivities>;

async function recordWithdrawalEvent(
  type: 'withdrawal.completed' | 'withdrawal.failed',
  withdrawal: Withdrawal,
  transaction: Transaction,
): Promise<void> {
  const [view] = await presentWithdrawalRows(withdrawal.merchantId, [withdrawal]);
  await recordEvent(
    { type, merchantId: withdrawal.merchantId, aggregateType: 'withdrawal', aggregateId: withdrawal.id, payload: view },
    transaction,
  );
}

async function writeTombstone(input: WithdrawalInput, transaction: Transaction): Promise<void> {
  // An all-available request has no amount of its own (0): the tombstone moved no money either
  // way (FAILED, no ledger entry), and 1 cent only satisfies the amount CHECK.
  const amountCents = Math.max(input.amountCents, 1);
  await Withdrawal.create(
    {
      id: input.withdrawalId,
      merchantId: input.merchantId,
      userId: input.userId,
      amountCents,
      feeCents: 0,
      totalDebitedCents: amountCents,
      status: 'FAILED',
      description: input.description,
      idempotencyKey: input.idempotencyKey,
      partnerTxId: null,
      providerTransferId: null,
      providerEndToEndId: null,
      failureCode: NOT_PROCESSED.code,
      failureReason: NOT_PROCESSED.reason,
      beneficiarySnapshot: null,
      sourceAccountSnapshot: null,
      processedAt: new Date(),
    },
    { transaction },
  );
}

/** The settlement label of a withdrawal, in the reservation's transaction (commits with it or not at all). */
async function insertSettlement(
  sequelize: Sequelize,
  tag: SettlementTag,
  withdrawal: Withdrawal,
  transaction: Transaction,
): Promise<void> {
  await sequelize.query(
    `INSERT INTO settlements (id, merchant_id, withdrawal_id, trigger, requested_by, schedule_run_id, schedule_frequency)
     VALUES (:id, :merchantId, :withdrawalId, :trigger, :requestedBy, :runId, :frequency)`,
    {
      replacements: {
        id: tag.settlementId,
        merchantId: withdrawal.merchantId,
        withdrawalId: withdrawal.id,
        trigger: tag.trigger,
        requestedBy: tag.requestedBy,
        runId: tag.scheduleRunId,
        frequency: tag.scheduleFrequency,
      },
      transaction,
    },
  );
}

function refusal(message: string, type: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, type);
}

async function lockWithdrawal(withdrawalId: string, transaction: Transaction): Promise<Withdrawal> {
  const withdrawal = await Withdrawal.findByPk(withdrawalId, { transaction, lock: transaction.LOCK.UPDATE });
  if (!withdrawal)
    throw ApplicationFailure.nonRetryable(`withdrawal ${withdrawalId} not found`, WithdrawalFailureTypes.stateConflict);
  return withdrawal;
}

function moneyOf(w: Withdrawal) {
  return { withdrawalId: w.id, merchantId: w.merchantId, amountCents: w.amountCents, feeCents: w.feeCents };
}

function reservedFrom(w: Withdrawal): ReservedWithdrawal {
  return {
    withdrawalId: w.id,
    status: w.status,
    amountCents: w.amountCents,
    feeCents: w.feeCents,
    totalDebitedCents: w.totalDebitedCents,
  };
}

/** Only what we store (the transfer path already checked it is ours: reference and amount). */
function outcomeOf(transfer: ProviderTransfer): TransferOutcome {
  return {
    status: transfer.status,
    providerTransferId: transfer.id,
    endToEndId: transfer.status === 'COMPLETED' ? transfer.endToEndId : null,
    failureCode: transfer.status === 'FAILED' ? (transfer.failureCode ?? null) : null,
  };
}
