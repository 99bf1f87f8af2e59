/**
 * The activity half of the one outbound-transfer path (workflows/transfers/outboundTransfer.ts is
 * the workflow half): the reserve, the send, the settle and the release that withdrawals (and the
 * scheduled settlements they carry), refunds (and the MED devoluções they carry) and payout items
 * go through. Each domain's activities lock and update their own rows; the rules are here, once.
 *
 * Money rules kept here:
 * - Reserve: in the DB transaction that stores the business row, under a lock on the merchant row
 *   (FOR UPDATE), so an operator's freeze or deactivation lands wholly before or after it; the
 *   domain's rule may refuse, and then nothing is stored. The reserve entry (core/ledger/postings.ts)
 *   commits with the row or not at all; a balance that does not cover it refuses the request
 *   (InsufficientBalanceError, from the ledger's CHECK).
 * - Send: only a row still reserved is sent, through the one transfer path (transferPath.ts
 *   says what its answers mean). A known answer is settled or released at once; no record at
 *   the provider is UNCONFIRMED, resolved by the workflow after its grace period.
 * - The provider's record alone decides (`decide`): a completed transfer settles; a refusal carried
 *   on a transfer object releases; no record releases (called only once the grace has passed).
 *   The failure text stored is ours (core/transfers/failures.ts).
 * - Settle or release: once, in one DB transaction with the business row (`settleOrRelease`). Only
 *   rows still reserved move; a row that already moved the same way is left as it is (a retried
 *   activity changes nothing twice, and each entry is keyed); a row that moved the other way (paid
 *   after its reserve was returned, or the reverse) is a conflict for a person: stop and alert.
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Sequelize, Transaction } from 'sequelize';
import type { LedgerEntry } from '../../core/ledger/postings';
import type { PaymentReturnRequest, TransferRequest } from '../../core/provider';
import {
  CANCELLED_BEFORE_TRANSFER,
  TRANSFER_NOT_ACCEPTED,
  describeTransferFailure,
} from '../../core/transfers/failures';
import { merchantStore, type Merchant } from '../../db/identity';
import { writeLedgerEntries } from '../ledger/ledgerWriter';
import type { TransferAnswer, TransferPath } from './transferPath';

/** What the provider's record makes of a reserved transfer. */
export type TransferDecision =
  | { kind: 'SETTLE'; providerTransferId: string; endToEndId: string | null }
  | {
      kind: 'RELEASE';
      /** The refused transfer; null when the provider has no record of one. */
      providerTransferId: string | null;
      failure: { code: string; reason: string };
      /** Released because an operator cancelled before anything was sent. */
      cancelled: boolean;
    };

/** The provider refused the call and has no record of it (yet): wait TRANSFER_GRACE, then `resolveTransfer`. */
export interface Unconfirmed {
  kind: 'UNCONFIRMED';
  /** Our code for the refused call (shown on the row while it waits, by domains that do). */
  code: string;
}

/**
 * The one reading of the provider's answer. No record (`null` or NO_RECORD) releases: call it
 * only after the grace period; `cancelled` when an operator cancelled before anything was sent.
 */
export function decide(answer: TransferAnswer | null, opts: { cancelled?: boolean } = {}): TransferDecision {
  if (answer?.kind === 'COMPLETED')
    return { kind: 'SETTLE', providerTransferId: answer.transfer.id, endToEndId: answer.transfer.endToEndId ?? null };
  if (answer?.kind === 'REFUSED')
    return {
      kind: 'RELEASE',
      providerTransferId: answer.transfer.id,
      failure: describeTransferFailure(answer.transfer.failureCode ?? null),
      cancelled: false,
    };
  const cancelled = opts.cancelled === true;
  return {
    kind: 'RELEASE',
    providerTransferId: null,
    failure: cancelled ? CANCELLED_BEFORE_TRANSFER : TRANSFER_NOT_ACCEPTED,
    cancelled,
  };
}

/** Sends a reserved transfer; `retry` when an earlier attempt may have reached the provider (it is asked first). */
export async function sendTransfer(
  transfers: TransferPath,
  request: TransferRequest | PaymentReturnRequest,
  opts: { retry: boolean },
): Promise<TransferDecision | Unconfirmed> {
  const answer = await transfers.send(request, opts);
  return answer.kind === 'NO_RECORD' ? { kind: 'UNCONFIRMED', code: answer.code } : decide(answer);
}

/** After the grace period: the provider's record for our reference decides; with none, nothing was sent. */
export async function resolveTransfer(
  transfers: TransferPath,
  lookup: Parameters<TransferPath['lookup']>[0],
  opts: { cancelled?: boolean } = {},
): Promise<TransferDecision> {
  return decide(await transfers.lookup(lookup), opts);
}

/**
 * The reserve's merchant check, inside the reserve's DB transaction: the merchant row locked FOR
 * UPDATE, then the domain's rule (`refuse` throws its refusal; it also sees a missing merchant).
 */
export async function lockMerchantForReserve(
  transaction: Transaction,
  merchantId: string | null,
  refuse: (merchant: Merchant | null) => void,
): Promise<Merchant | null> {
  const merchant = merchantId ? await merchantStore.lockMerchant(merchantId, transaction) : null;
  refuse(merchant);
  return merchant;
}

/** A reserved transfer's rows moved to the decided outcome, with what each decision was. */
export interface Moved<R> {
  row: R;
  decision: TransferDecision;
}

/**
 * Settles or releases reserved transfers in one DB transaction: `transition` moves the rows still
 * reserved to their decided outcome (under their row locks, or by one conditional UPDATE) and
 * answers those that moved; their ledger entries (`entry`: the settle or the release) are written
 * with them, and `recorded` adds their events. Many rows at once serve a payout slice.
 */
export async function settleOrRelease<R>(
  sequelize: Sequelize,
  spec: {
    transition: (transaction: Transaction) => Promise<Array<Moved<R>>>;
    /** Null: the decision moves no money (a refused split send: its share stays reserved). */
    entry: (moved: Moved<R>) => LedgerEntry | null;
    recorded?: (moved: Array<Moved<R>>, transaction: Transaction) => Promise<void>;
  },
): Promise<Array<Moved<R>>> {
  return sequelize.transaction(async (transaction) => {
    const moved = await spec.transition(transaction);
    const entries = moved.map(spec.entry).filter((e): e is LedgerEntry => e !== null);
    await writeLedgerEntries(sequelize, entries, transaction);
    if (moved.length > 0) await spec.recorded?.(moved, transaction);
    return moved;
  });
}

/** One business row of a reserved transfer, as `settleOrReleaseOne` handles it. */
export interface ReservedRow<R> {
  /** Reads the row FOR UPDATE; null when there is none. */
  lock: (transaction: Transaction) => Promise<R | null>;
  /** RESERVED while it waits for the provider; SETTLED or RELEASED once its money moved. */
  stateOf: (row: R) => 'RESERVED' | 'SETTLED' | 'RELEASED';
  /** The row's new status, provider ids and failure text. */
  apply: (row: R, decision: TransferDecision, transaction: Transaction) => Promise<void>;
  entry: (row: R, decision: TransferDecision) => LedgerEntry | null;
  recorded?: (row: R, decision: TransferDecision, transaction: Transaction) => Promise<void>;
  /** Names the row in a conflict's alert, e.g. `withdrawal <id> is COMPLETED`. */
  describe: (row: R) => string;
  conflictType: string;
}

/**
 * Settles or releases one row. Answers the row (as it is after) and whether it moved now; null
 * when there is no such row. A row that moved the other way before is a conflict: non-retryable.
 */
export async function settleOrReleaseOne<R>(
  sequelize: Sequelize,
  spec: ReservedRow<R>,
  decision: TransferDecision,
): Promise<{ row: R; moved: boolean } | null> {
  let found: R | null = null;
  const moved = await settleOrRelease<R>(sequelize, {
    transition: async (transaction) => {
      found = await spec.lock(transaction);
      if (!found) return [];
      const state = spec.stateOf(found);
      if (state === 'RESERVED') {
        await spec.apply(found, decision, transaction);
        return [{ row: found, decision }];
      }
      if ((state === 'SETTLED') !== (decision.kind === 'SETTLE')) {
        throw ApplicationFailure.nonRetryable(
          `${spec.describe(found)} but the provider's record says ${decision.kind === 'SETTLE' ? 'it was paid' : 'it was not paid'}`,
          spec.conflictType,
        );
      }
      return [];
    },
    entry: ({ row, decision: d }) => spec.entry(row, d),
    recorded: spec.recorded
      ? (rows, transaction) => spec.recorded!(rows[0].row, rows[0].decision, transaction)
      : undefined,
  });
  return found === null ? null : { row: found, moved: moved.length > 0 };
}
