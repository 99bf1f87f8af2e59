/**
 * The settle and release of one withdrawal's row (transferSteps.ts states the rules), and the two
 * activities that decide it directly: the workflow's tombstone and cancel-before-send use
 * failWithdrawal, the janitor's repair completeWithdrawal and failWithdrawal.
 */
import type { Transaction } from 'sequelize';
import { movements, release, settle } from '../../core/ledger/postings';
import { describeTransferFailure } from '../../core/transfers/failures';
import type { WithdrawalStatus } from '../../core/withdrawals/rules';
import { withdrawalStore, type Withdrawal } from '../../db/withdrawals';
import {
  WithdrawalFailureTypes,
  type FailureNote,
  type ReservedWithdrawal,
  type TransferOutcome,
  type WithdrawalInput,
} from '../../workflows/withdrawals/types';
import { settleOrReleaseOne, type ReservedRow, type TransferDecision } from '../transfers/transferSteps';
import type { WithdrawalDeps } from './deps';
import { recordWithdrawalEvent } from './event';
import { moneyOf, notFound, reservedFrom } from './row';
import { writeTombstone } from './tombstone';

/** What a send or a resolve left the withdrawal as; UNCONFIRMED: no record at the provider yet (wait, then resolve). */
export type WithdrawalStep = Exclude<WithdrawalStatus, 'PROCESSING'> | 'UNCONFIRMED';

export async function settleOrReleaseWithdrawal(
  deps: WithdrawalDeps,
  withdrawalId: string,
  decision: TransferDecision,
): Promise<WithdrawalStep> {
  const done = await settleOrReleaseOne(deps.sequelize, reservedWithdrawal(deps, withdrawalId), decision);
  if (!done) throw notFound(withdrawalId);
  return done.row.status as WithdrawalStep;
}

/** The money left: settled (reserved → provider clearing, and the fee to the platform). */
export async function completeWithdrawal(
  deps: WithdrawalDeps,
  args: { withdrawalId: string; transfer: TransferOutcome },
): Promise<ReservedWithdrawal> {
  const done = await settleOrReleaseOne(deps.sequelize, reservedWithdrawal(deps, args.withdrawalId), {
    kind: 'SETTLE',
    providerTransferId: args.transfer.providerTransferId,
    endToEndId: args.transfer.endToEndId,
  });
  if (!done) throw notFound(args.withdrawalId);
  return reservedFrom(done.row);
}

interface FailWithdrawal {
  withdrawalId: string;
  status: 'FAILED' | 'CANCELLED';
  transfer: TransferOutcome | null;
  failure: FailureNote | null;
  /** Given when the workflow gives up reserving: with no row yet, a terminal one is written. */
  tombstone?: WithdrawalInput;
}

/**
 * The money did not leave: released (the whole reserve goes back). Returns null when there is
 * no such withdrawal (a reservation that never committed; with `tombstone`, a terminal row is
 * written in its place).
 */
export async function failWithdrawal(deps: WithdrawalDeps, args: FailWithdrawal): Promise<ReservedWithdrawal | null> {
  const done = await settleOrReleaseOne(deps.sequelize, reservedWithdrawal(deps, args.withdrawalId, args.tombstone), {
    kind: 'RELEASE',
    providerTransferId: args.transfer?.providerTransferId ?? null,
    failure: args.transfer
      ? describeTransferFailure(args.transfer.failureCode)
      : (args.failure ?? describeTransferFailure(null)),
    cancelled: args.status === 'CANCELLED',
  });
  return done ? reservedFrom(done.row) : null;
}

/** The settle and release steps of one withdrawal's row (transferSteps.ts). */
function reservedWithdrawal(
  deps: WithdrawalDeps,
  withdrawalId: string,
  tombstone?: WithdrawalInput,
): ReservedRow<Withdrawal> {
  return {
    lock: async (transaction) => {
      const withdrawal = await withdrawalStore.lockWithdrawal(withdrawalId, transaction);
      // A durable give-up: a late reserve attempt finds this row (or hits its primary key, or
      // its key's binding) and reserves nothing, so the client's "nothing was debited" stays
      // true. Written in this transaction with its event: once, however often this is retried.
      if (!withdrawal && tombstone) await writeTombstone(deps, tombstone, transaction);
      return withdrawal;
    },
    stateOf: (w) => (w.status === 'PROCESSING' ? 'RESERVED' : w.status === 'COMPLETED' ? 'SETTLED' : 'RELEASED'),
    apply: applyDecision,
    entry: (w, decision) => {
      const keys = movements.withdrawal(w.id);
      return decision.kind === 'SETTLE' ? settle(keys.settle, moneyOf(w)) : release(keys.release, moneyOf(w).shares);
    },
    // A cancelled withdrawal did not pay out either: merchants get withdrawal.failed with status CANCELLED.
    recorded: (w, decision, transaction) =>
      recordWithdrawalEvent(
        decision.kind === 'SETTLE' ? 'withdrawal.completed' : 'withdrawal.failed',
        w,
        transaction,
        deps.platformInstitution,
      ),
    describe: (w) => `withdrawal ${w.id} is ${w.status}`,
    conflictType: WithdrawalFailureTypes.stateConflict,
  };
}

async function applyDecision(w: Withdrawal, decision: TransferDecision, transaction: Transaction): Promise<void> {
  const processedAt = new Date();
  if (decision.kind === 'SETTLE') {
    await withdrawalStore.updateWithdrawal(
      w,
      {
        status: 'COMPLETED',
        processedAt,
        partnerTxId: w.id,
        providerTransferId: decision.providerTransferId,
        providerEndToEndId: decision.endToEndId,
      },
      transaction,
    );
    return;
  }
  await withdrawalStore.updateWithdrawal(
    w,
    {
      status: decision.cancelled ? 'CANCELLED' : 'FAILED',
      processedAt,
      failureCode: decision.failure.code,
      failureReason: decision.failure.reason,
      partnerTxId: decision.providerTransferId ? w.id : null,
      providerTransferId: decision.providerTransferId,
    },
    transaction,
  );
}
