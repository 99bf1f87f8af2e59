/**
 * The subscriptions and subscription_cycles tables (migration 0045): their one writer (the
 * subscription's workflow, through activities/subscriptions) and the way to read them (the
 * activities, the API's routes and hosted page, the notification routes). Raw SQL; rows are
 * answered as core/subscriptions/view.ts SubscriptionRow / CycleRow.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { SubscriptionInterval } from '../../core/subscriptions/calendar';
import type { RetryPolicy } from '../../core/subscriptions/retries';
import type { CancelledBy, SubscriptionState } from '../../core/subscriptions/states';
import type { CycleStatus, SubscriptionJourneyName } from '../../core/subscriptions/view';
import { affectedRows } from '../affectedRows';

import {
  CYCLE_COLUMNS,
  SUBSCRIPTION_COLUMNS,
  cycleOf,
  subscriptionOf,
  type CycleRecord,
  type StoredCycle,
  type StoredSubscription,
  type SubscriptionRecord,
} from './rows';

export type { StoredCycle, StoredSubscription } from './rows';

// --- reads -----------------------------------------------------------------------------------

export async function findSubscription(
  sequelize: Sequelize,
  id: string,
  transaction?: Transaction,
): Promise<StoredSubscription | null> {
  const [row] = await sequelize.query<SubscriptionRecord>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE id = :id`,
    { replacements: { id }, type: QueryTypes.SELECT, transaction },
  );
  return row ? subscriptionOf(row) : null;
}

/** The subscription row under FOR UPDATE: state changes of one subscription serialise on it. */
export async function lockSubscription(
  sequelize: Sequelize,
  id: string,
  transaction: Transaction,
): Promise<StoredSubscription | null> {
  const [row] = await sequelize.query<SubscriptionRecord>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE id = :id FOR UPDATE`,
    { replacements: { id }, type: QueryTypes.SELECT, transaction },
  );
  return row ? subscriptionOf(row) : null;
}

/** The subscription of the PSP's recurrence (a webhookrec notice names it), or null. */
export async function findByRecId(sequelize: Sequelize, idRec: string): Promise<StoredSubscription | null> {
  const [row] = await sequelize.query<SubscriptionRecord>(
    `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriptions WHERE id_rec = :idRec`,
    { replacements: { idRec }, type: QueryTypes.SELECT },
  );
  return row ? subscriptionOf(row) : null;
}

/** The cycle charged by this cobr (a webhookcobr notice, or a Pix on its txid), with its subscription; or null. */
export async function findCycleByTxid(sequelize: Sequelize, txid: string): Promise<StoredCycle | null> {
  const [row] = await sequelize.query<CycleRecord>(
    `SELECT ${CYCLE_COLUMNS} FROM subscription_cycles WHERE txid = :txid`,
    {
      replacements: { txid },
      type: QueryTypes.SELECT,
    },
  );
  return row ? cycleOf(row) : null;
}

export async function findCycle(
  sequelize: Sequelize,
  subscriptionId: string,
  cycle: number,
  transaction?: Transaction,
): Promise<StoredCycle | null> {
  const [row] = await sequelize.query<CycleRecord>(
    `SELECT ${CYCLE_COLUMNS} FROM subscription_cycles WHERE subscription_id = :subscriptionId AND cycle = :cycle`,
    { replacements: { subscriptionId, cycle }, type: QueryTypes.SELECT, transaction },
  );
  return row ? cycleOf(row) : null;
}

/** The latest cycle issued (null before the first): what the view shows as current. */
export async function currentCycle(
  sequelize: Sequelize,
  subscriptionId: string,
  transaction?: Transaction,
): Promise<StoredCycle | null> {
  const [row] = await sequelize.query<CycleRecord>(
    `SELECT ${CYCLE_COLUMNS} FROM subscription_cycles WHERE subscription_id = :subscriptionId ORDER BY cycle DESC LIMIT 1`,
    { replacements: { subscriptionId }, type: QueryTypes.SELECT, transaction },
  );
  return row ? cycleOf(row) : null;
}

// --- writes (the subscription's workflow, through its activities) ---------------------------

export interface NewSubscription {
  id: string;
  merchantId: string;
  courseId: string;
  priceId: string;
  journey: SubscriptionJourneyName;
  interval: SubscriptionInterval;
  retryPolicy: RetryPolicy;
  amountCents: number;
  firstDueDate: string;
  lastDueDate: string | null;
  payerName: string;
  payerDocument: string;
  payerAccount: { ispb: string; branch: string | null; account: string } | null;
  pspConnectionId: string | null;
  firstChargeId: string | null;
  externalId: string | null;
  metadata: Record<string, unknown>;
  returnUrl: string | null;
  idempotencyKey: string | null;
}

/** Inserts the row unless it exists (a retried first activity); answers whether it is new. */
export async function insertSubscription(
  sequelize: Sequelize,
  s: NewSubscription,
  transaction: Transaction,
): Promise<boolean> {
  const inserted = await sequelize.query<{ id: string }>(
    `INSERT INTO subscriptions (id, merchant_id, course_id, price_id, journey, interval, retry_policy, amount_cents,
       first_due_date, last_due_date, payer_name, payer_document, payer_account, psp_connection_id, first_charge_id,
       external_id, metadata, return_url, idempotency_key)
     VALUES (:id, :merchantId, :courseId, :priceId, :journey, :interval, :retryPolicy, :amountCents,
       :firstDueDate, :lastDueDate, :payerName, :payerDocument, CAST(:payerAccount AS JSONB), :pspConnectionId,
       :firstChargeId, :externalId, CAST(:metadata AS JSONB), :returnUrl, :idempotencyKey)
     ON CONFLICT (id) DO NOTHING RETURNING id`,
    {
      replacements: {
        ...s,
        payerAccount: s.payerAccount ? JSON.stringify(s.payerAccount) : null,
        metadata: JSON.stringify(s.metadata ?? {}),
      },
      type: QueryTypes.SELECT,
      transaction,
    },
  );
  return inserted.length > 0;
}

/** What the PSP created for the payer to authorise (the rec, its QR or its solicrec), stored once known. */
export async function recordRecurrence(
  sequelize: Sequelize,
  id: string,
  rec: { idRec: string; qrCopyPaste?: string | null; authorizationRequestId?: string | null },
): Promise<void> {
  await sequelize.query(
    `UPDATE subscriptions SET id_rec = :idRec,
       qr_copy_paste = COALESCE(:qrCopyPaste, qr_copy_paste),
       authorization_request_id = COALESCE(:authorizationRequestId, authorization_request_id),
       updated_at = now()
     WHERE id = :id`,
    {
      replacements: {
        id,
        idRec: rec.idRec,
        qrCopyPaste: rec.qrCopyPaste ?? null,
        authorizationRequestId: rec.authorizationRequestId ?? null,
      },
    },
  );
}

/**
 * The subscription's new state with what goes with it: authorised_at the first time it is
 * authorised, ended_at, cancelled_by and ending_code when it ends (the first values stay).
 */
export async function updateState(
  sequelize: Sequelize,
  id: string,
  change: {
    state: SubscriptionState;
    ended: boolean;
    authorised: boolean;
    cancelledBy: CancelledBy | null;
    endingCode: string | null;
  },
  transaction: Transaction,
): Promise<void> {
  await sequelize.query(
    `UPDATE subscriptions SET status = :state,
       authorised_at = CASE WHEN :authorised THEN COALESCE(authorised_at, now()) ELSE authorised_at END,
       ended_at = CASE WHEN :ended THEN COALESCE(ended_at, now()) ELSE ended_at END,
       cancelled_by = COALESCE(cancelled_by, :cancelledBy),
       ending_code = COALESCE(ending_code, :endingCode),
       updated_at = now()
     WHERE id = :id`,
    { replacements: { id, ...change }, transaction },
  );
}

/** Inserts a cycle row unless it exists; answers the row as stored. */
export async function insertCycleOnce(
  sequelize: Sequelize,
  c: {
    subscriptionId: string;
    cycle: number;
    txid: string | null;
    chargeId: string;
    dueDate: string;
    settlementDate: string;
    status: CycleStatus;
    paidAt?: Date | null;
  },
  transaction: Transaction,
): Promise<StoredCycle> {
  await sequelize.query(
    `INSERT INTO subscription_cycles (subscription_id, cycle, txid, charge_id, due_date, settlement_date, status, paid_at)
     VALUES (:subscriptionId, :cycle, :txid, :chargeId, :dueDate, :settlementDate, :status, :paidAt)
     ON CONFLICT (subscription_id, cycle) DO NOTHING`,
    { replacements: { ...c, paidAt: c.paidAt ?? null }, transaction },
  );
  const row = await findCycle(sequelize, c.subscriptionId, c.cycle, transaction);
  if (!row) throw new Error(`subscription_cycles: cycle ${c.cycle} of ${c.subscriptionId} neither inserted nor found`);
  return row;
}

/** The cycle row under FOR UPDATE. */
export async function lockCycle(
  sequelize: Sequelize,
  subscriptionId: string,
  cycle: number,
  transaction: Transaction,
): Promise<StoredCycle | null> {
  const [row] = await sequelize.query<CycleRecord>(
    `SELECT ${CYCLE_COLUMNS} FROM subscription_cycles WHERE subscription_id = :subscriptionId AND cycle = :cycle FOR UPDATE`,
    { replacements: { subscriptionId, cycle }, type: QueryTypes.SELECT, transaction },
  );
  return row ? cycleOf(row) : null;
}

/** A retry asked of the PSP on `settlementDate`: RETRYING, counted once per date (a rerun counts nothing). */
export async function markRetrying(
  sequelize: Sequelize,
  subscriptionId: string,
  cycle: number,
  settlementDate: string,
  transaction: Transaction,
): Promise<void> {
  await sequelize.query(
    `UPDATE subscription_cycles SET status = 'RETRYING', retries = LEAST(retries + 1, 3),
       settlement_date = :settlementDate, updated_at = now()
     WHERE subscription_id = :subscriptionId AND cycle = :cycle AND status IN ('ISSUED','RETRYING')
       AND settlement_date < :settlementDate`,
    { replacements: { subscriptionId, cycle, settlementDate }, transaction },
  );
}

/** The cycle's outcome (PAID, FAILED or CANCELLED), once: a cycle that already ended keeps its outcome. */
export async function endCycle(
  sequelize: Sequelize,
  subscriptionId: string,
  cycle: number,
  outcome:
    | { status: 'PAID'; paidAt: Date }
    | { status: 'FAILED'; reason: string; rejectionCode: string | null }
    | { status: 'CANCELLED' },
  transaction: Transaction,
): Promise<boolean> {
  const [, affected] = await sequelize.query(
    `UPDATE subscription_cycles SET status = :status, paid_at = :paidAt, failure_reason = :reason,
       rejection_code = :rejectionCode, updated_at = now()
     WHERE subscription_id = :subscriptionId AND cycle = :cycle AND status IN ('ISSUED','RETRYING')`,
    {
      replacements: {
        subscriptionId,
        cycle,
        status: outcome.status,
        paidAt: outcome.status === 'PAID' ? outcome.paidAt : null,
        reason: outcome.status === 'FAILED' ? outcome.reason.slice(0, 500) : null,
        rejectionCode: outcome.status === 'FAILED' ? outcome.rejectionCode : null,
      },
      transaction,
    },
  );
  return affectedRows(affected) > 0;
}
