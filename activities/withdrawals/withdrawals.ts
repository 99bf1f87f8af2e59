/**
 * Withdrawal activities: the withdrawal's reserve, send, settle and release on the one outbound
 * transfer path (activities/transfers/transferSteps.ts states its rules). What a withdrawal adds:
 * it is paid to the merchant's own Pix key, snapshotted when reserved; amount + fee are reserved
 * (an all-available request reads the balance under the merchant lock); it may carry a
 * settlement, whose row commits with the reservation; a reserve given up leaves a FAILED
 * tombstone, bound to the request's idempotency key and announced as withdrawal.failed, and one
 * that committed after all is released, not sent.
 */
import { recordEvent } from '../events/outbox';
import { presentWithdrawalRows, withdrawalStore, type Withdrawal } from '../../db/withdrawals';
import { settlementStore } from '../../db/settlements';
import type { Merchant } from '../../db/identity';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Logger } from 'pino';
import type { Sequelize, Transaction } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { moneyOutRefusal } from '../../core/identity/moneyOut';
import { movements, release, reserve, settle, withdrawalMoney } from '../../core/ledger/postings';
import type { PixProvider, ProviderTransfer } from '../../core/provider';
import { NOT_PROCESSED, PSP_BALANCE_INSUFFICIENT, describeTransferFailure } from '../../core/transfers/failures';
import { beneficiarySnapshot, sourceAccountSnapshot, withdrawalFee } from '../../core/withdrawals/rules';
import { DEFAULT_PLATFORM_INSTITUTION_NAME } from '../../config';
import {
  WithdrawalFailureTypes,
  type FailureNote,
  type ReservedWithdrawal,
  type TransferOutcome,
  type WithdrawalInput,
} from '../../workflows/withdrawals/types';
import type { WithdrawalStatus } from '../../core/withdrawals/rules';
import { InsufficientBalanceError, balanceOf, writeLedgerEntry } from '../ledger/ledgerWriter';
import { accountCovers } from '../transfers/accountBalance';
import { createTransferPath } from '../transfers/transferPath';
import {
  lockMerchantForReserve,
  resolveTransfer,
  sendTransfer,
  settleOrReleaseOne,
  type ReservedRow,
  type TransferDecision,
} from '../transfers/transferSteps';

/** What a send or a resolve left the withdrawal as; UNCONFIRMED: no record at the provider yet (wait, then resolve). */
export type WithdrawalStep = Exclude<WithdrawalStatus, 'PROCESSING'> | 'UNCONFIRMED';

export interface WithdrawalActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  logger: Logger;
  /** config.platformInstitutionName: the source account's institution; default config.ts's. */
  platformInstitution?: string;
}

export function createWithdrawalActivities(deps: WithdrawalActivityDeps) {
  const { sequelize, provider } = deps;
  const transfers = createTransferPath(provider, deps.logger);
  const platformInstitution = deps.platformInstitution ?? DEFAULT_PLATFORM_INSTITUTION_NAME;

  /** Stores the withdrawal and reserves amount + fee in one DB transaction, or refuses and stores nothing. */
  async function reserveWithdrawal(input: WithdrawalInput): Promise<ReservedWithdrawal> {
    let requiredCents = input.amountCents;
    try {
      return await sequelize.transaction(async (transaction) => {
        const existing = await withdrawalStore.findWithdrawal(input.withdrawalId, transaction);
        if (existing) return reservedFrom(existing); // a retry after a commit whose answer was lost
        // A key change lands wholly before or after this request too.
        const merchant = (await lockMerchantForReserve(transaction, input.merchantId, (m) => {
          const held = moneyOutRefusal(m);
          if (held === 'MERCHANT_INACTIVE')
            throw refusal('the merchant is not active', WithdrawalFailureTypes.merchantInactive);
          if (held === 'WITHDRAWAL_FROZEN')
            throw refusal('withdrawals are frozen for this merchant', WithdrawalFailureTypes.frozen);
        })) as Merchant;
        // One key, one withdrawal or settlement (withdrawals_one_per_key, settlements_one_per_key),
        // under the merchant's lock; the API answers the one the key already made.
        const bound = await boundToKey(input, transaction);
        if (bound)
          throw refusal(
            'this idempotency key already made a withdrawal of the merchant',
            WithdrawalFailureTypes.keyBound,
            {
              boundTo: bound,
            },
          );
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
        const row = await withdrawalStore.createWithdrawal(
          {
            id: input.withdrawalId,
            merchantId: merchant.id,
            userId: input.userId,
            amountCents,
            feeCents,
            totalDebitedCents: requiredCents,
            status: 'PROCESSING',
            description: input.description,
            // A settlement's key is the settlement's (bound on its row): the withdrawal under it
            // repeats none, so a merchant's withdrawal and settlement may share a key.
            idempotencyKey: input.settlement ? null : input.idempotencyKey,
            partnerTxId: null,
            providerTransferId: null,
            providerEndToEndId: null,
            failureCode: null,
            failureReason: null,
            beneficiarySnapshot: beneficiary,
            sourceAccountSnapshot: sourceAccountSnapshot(merchant, platformInstitution),
            processedAt: null,
          },
          transaction,
        );
        await writeLedgerEntry(
          sequelize,
          reserve(movements.withdrawal(row.id).reserve, moneyOf(row).shares),
          transaction,
        );
        if (input.settlement)
          await settlementStore.insertSettlement(sequelize, input.settlement, row, input.idempotencyKey, transaction);
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

  /** The withdrawal (or settlement) id this request's idempotency key already made, if any. */
  async function boundToKey(input: WithdrawalInput, transaction: Transaction): Promise<string | null> {
    const key = input.idempotencyKey;
    if (!key) return null;
    if (input.settlement)
      return (await settlementStore.settlementOfKey(sequelize, input.merchantId, key, transaction))?.id ?? null;
    return (await withdrawalStore.withdrawalOfKey(input.merchantId, key, transaction))?.id ?? null;
  }

  /**
   * The give-up's terminal row (FAILED / NOT_PROCESSED, no money moved) under the request's id.
   * It is the request's one effect: bound to its idempotency key like a reservation (the
   * withdrawal's own key, or a settlement's label), so every later attempt with the key answers
   * it instead of writing another row; and announced as every failed withdrawal is.
   */
  async function writeTombstone(input: WithdrawalInput, transaction: Transaction): Promise<void> {
    // A key that already made another withdrawal (its claim expired, the key reused) stays that one's.
    const key = (await boundToKey(input, transaction)) ? null : input.idempotencyKey;
    // An all-available request has no amount of its own (0): the tombstone moved no money either
    // way (FAILED, no ledger entry), and 1 cent only satisfies the amount CHECK.
    const amountCents = Math.max(input.amountCents, 1);
    const row = await withdrawalStore.createWithdrawal(
      {
        id: input.withdrawalId,
        merchantId: input.merchantId,
        userId: input.userId,
        amountCents,
        feeCents: 0,
        totalDebitedCents: amountCents,
        status: 'FAILED',
        description: input.description,
        // As in a reservation: a settlement's key is bound on its label, not on its withdrawal.
        idempotencyKey: input.settlement ? null : key,
        partnerTxId: null,
        providerTransferId: null,
        providerEndToEndId: null,
        failureCode: NOT_PROCESSED.code,
        failureReason: NOT_PROCESSED.reason,
        beneficiarySnapshot: null,
        sourceAccountSnapshot: null,
        processedAt: new Date(),
      },
      transaction,
    );
    if (input.settlement) await settlementStore.insertSettlement(sequelize, input.settlement, row, key, transaction);
    await recordWithdrawalEvent('withdrawal.failed', row, transaction, platformInstitution);
  }

  /** The transfer of a reserved withdrawal, to the key snapshotted with it (the withdrawal id is the key). */
  function transferOf(withdrawal: Withdrawal) {
    const beneficiary = withdrawal.beneficiarySnapshot;
    if (!beneficiary)
      throw ApplicationFailure.nonRetryable(
        `withdrawal ${withdrawal.id} has no beneficiary`,
        WithdrawalFailureTypes.stateConflict,
      );
    return {
      reference: withdrawal.id,
      amountCents: withdrawal.amountCents,
      pixKey: beneficiary.pixKey,
      pixKeyType: beneficiary.pixKeyType,
      recipientName: beneficiary.name,
      recipientDocument: beneficiary.document,
    };
  }

  /**
   * Sends the reserved withdrawal and settles or releases it at once when the provider's answer
   * is known; UNCONFIRMED when the provider has no record of it (the workflow waits the grace
   * period, then resolveWithdrawal). A withdrawal no longer PROCESSING is not sent: its status.
   */
  async function sendWithdrawal(args: { withdrawalId: string }): Promise<WithdrawalStep> {
    const withdrawal = await findWithdrawal(args.withdrawalId);
    if (withdrawal.status !== 'PROCESSING') return withdrawal.status;
    const retry = Context.current().info.attempt > 1;
    // Only before the first attempt: after one, a send may have gone and only its record decides.
    if (!retry && !(await accountCovers(deps.provider, withdrawal.amountCents, deps.logger)))
      return finish(withdrawal.id, {
        kind: 'RELEASE',
        providerTransferId: null,
        failure: PSP_BALANCE_INSUFFICIENT,
        cancelled: false,
      });
    const sent = await sendTransfer(transfers, transferOf(withdrawal), {
      // A later attempt may follow one whose answer was lost: the provider's record comes first.
      retry,
    });
    if (sent.kind === 'UNCONFIRMED') return 'UNCONFIRMED';
    return finish(withdrawal.id, sent);
  }

  /**
   * After the grace period: the provider's record settles or releases the withdrawal; with none,
   * nothing was sent and the reserve goes back (CANCELLED when an operator cancelled the run).
   */
  async function resolveWithdrawal(args: { withdrawalId: string; cancelled?: boolean }): Promise<WithdrawalStep> {
    const withdrawal = await findWithdrawal(args.withdrawalId);
    if (withdrawal.status !== 'PROCESSING') return withdrawal.status;
    const decision = await resolveTransfer(
      transfers,
      { reference: withdrawal.id, amountCents: withdrawal.amountCents },
      { cancelled: args.cancelled },
    );
    return finish(withdrawal.id, decision);
  }

  async function finish(withdrawalId: string, decision: TransferDecision): Promise<WithdrawalStep> {
    const done = await settleOrReleaseOne(sequelize, reservedWithdrawal(withdrawalId), decision);
    if (!done) throw notFound(withdrawalId);
    return done.row.status as WithdrawalStep;
  }

  /** The settle and release steps of one withdrawal's row (transferSteps.ts). */
  function reservedWithdrawal(withdrawalId: string, tombstone?: WithdrawalInput): ReservedRow<Withdrawal> {
    return {
      lock: async (transaction) => {
        const withdrawal = await withdrawalStore.lockWithdrawal(withdrawalId, transaction);
        // A durable give-up: a late reserve attempt finds this row (or hits its primary key, or
        // its key's binding) and reserves nothing, so the client's "nothing was debited" stays
        // true. Written in this transaction with its event: once, however often this is retried.
        if (!withdrawal && tombstone) await writeTombstone(tombstone, transaction);
        return withdrawal;
      },
      stateOf: (w) => (w.status === 'PROCESSING' ? 'RESERVED' : w.status === 'COMPLETED' ? 'SETTLED' : 'RELEASED'),
      apply: async (w, decision, transaction) => {
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
      },
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
          platformInstitution,
        ),
      describe: (w) => `withdrawal ${w.id} is ${w.status}`,
      conflictType: WithdrawalFailureTypes.stateConflict,
    };
  }

  async function findWithdrawal(withdrawalId: string): Promise<Withdrawal> {
    const withdrawal = await withdrawalStore.findWithdrawal(withdrawalId);
    if (!withdrawal) throw notFound(withdrawalId);
    return withdrawal;
  }

  // Runs started before the one choreography (patch outbound-transfer-v1) send, look up and settle
  // in separate activities; kept while such runs may exist. The janitor's repair and the
  // workflow's tombstone and cancel-before-send use completeWithdrawal and failWithdrawal too.

  /**
   * Sends the Pix transfer (the withdrawal id is the idempotency key). Null when the provider
   * refused the call and has no record of it. Never sends for a withdrawal not PROCESSING.
   */
  async function sendWithdrawalTransfer(args: { withdrawalId: string }): Promise<TransferOutcome | null> {
    const withdrawal = await withdrawalStore.findWithdrawal(args.withdrawalId);
    if (!withdrawal || withdrawal.status !== 'PROCESSING' || !withdrawal.beneficiarySnapshot) {
      throw ApplicationFailure.nonRetryable(
        `withdrawal ${args.withdrawalId} is not PROCESSING`,
        WithdrawalFailureTypes.stateConflict,
      );
    }
    const answer = await transfers.send(transferOf(withdrawal), { retry: Context.current().info.attempt > 1 });
    return answer.kind === 'NO_RECORD' ? null : outcomeOf(answer.transfer);
  }

  /** The provider's record of our transfer, or null when it has none. Retried until it answers. */
  async function findWithdrawalTransfer(args: { withdrawalId: string }): Promise<TransferOutcome | null> {
    const withdrawal = await findWithdrawal(args.withdrawalId);
    const answer = await transfers.lookup({ reference: withdrawal.id, amountCents: withdrawal.amountCents });
    return answer && answer.kind !== 'NO_RECORD' ? outcomeOf(answer.transfer) : null;
  }

  /** The money left: settled (reserved → provider clearing, and the fee to the platform). */
  async function completeWithdrawal(args: {
    withdrawalId: string;
    transfer: TransferOutcome;
  }): Promise<ReservedWithdrawal> {
    const done = await settleOrReleaseOne(sequelize, reservedWithdrawal(args.withdrawalId), {
      kind: 'SETTLE',
      providerTransferId: args.transfer.providerTransferId,
      endToEndId: args.transfer.endToEndId,
    });
    if (!done) throw notFound(args.withdrawalId);
    return reservedFrom(done.row);
  }

  /**
   * The money did not leave: released (the whole reserve goes back). Returns null when there is
   * no such withdrawal (a reservation that never committed; with `tombstone`, a terminal row is
   * written in its place).
   */
  async function failWithdrawal(args: {
    withdrawalId: string;
    status: 'FAILED' | 'CANCELLED';
    transfer: TransferOutcome | null;
    failure: FailureNote | null;
    /** Given when the workflow gives up reserving: with no row yet, a terminal one is written. */
    tombstone?: WithdrawalInput;
  }): Promise<ReservedWithdrawal | null> {
    const done = await settleOrReleaseOne(sequelize, reservedWithdrawal(args.withdrawalId, args.tombstone), {
      kind: 'RELEASE',
      providerTransferId: args.transfer?.providerTransferId ?? null,
      failure: args.transfer
        ? describeTransferFailure(args.transfer.failureCode)
        : (args.failure ?? describeTransferFailure(null)),
      cancelled: args.status === 'CANCELLED',
    });
    return done ? reservedFrom(done.row) : null;
  }

  return {
    reserveWithdrawal,
    sendWithdrawal,
    resolveWithdrawal,
    sendWithdrawalTransfer,
    findWithdrawalTransfer,
    completeWithdrawal,
    failWithdrawal,
  };
}

export type WithdrawalActivities = ReturnType<typeof createWithdrawalActivities>;

async function recordWithdrawalEvent(
  type: 'withdrawal.completed' | 'withdrawal.failed',
  withdrawal: Withdrawal,
  transaction: Transaction,
  platformInstitution: string,
): Promise<void> {
  const [view] = await presentWithdrawalRows(withdrawal.merchantId, [withdrawal], platformInstitution);
  await recordEvent(
    { type, merchantId: withdrawal.merchantId, aggregateType: 'withdrawal', aggregateId: withdrawal.id, payload: view },
    transaction,
  );
}

function refusal(message: string, type: string, details?: Record<string, unknown>): ApplicationFailure {
  return ApplicationFailure.create({ message, type, nonRetryable: true, details: details ? [details] : [] });
}

function notFound(withdrawalId: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(`withdrawal ${withdrawalId} not found`, WithdrawalFailureTypes.stateConflict);
}

function moneyOf(w: Withdrawal) {
  return withdrawalMoney({ merchantId: w.merchantId, amountCents: w.amountCents, feeCents: w.feeCents });
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
