/**
 * Activities of the Reconciliation workflow: the provider's statement against the
 * ledger, for one merchant's Pix charges paid in a date range (Brasília days, inclusive), or for
 * every merchant's at once (a platform-wide run, no merchant: operators only).
 *
 * - On the statement and in the ledger with the same gross and endToEndId: matched.
 * - On the statement, no CHARGE_PAID entry: missing in the ledger (a lost callback). It goes
 *   through the normal path, ProviderCallbackService.settleClaim (signal the lifecycle, or
 *   settleLatePayment when the run closed), which asks the provider again before crediting:
 *   reported healed. Nothing here writes to the ledger.
 * - Both, but the amounts (or the endToEndId) disagree: amount mismatch, for a person to look at.
 * - In the ledger, not on the statement: missing at the provider.
 * Devoluções (refunds) the same way, by refund id, against their REFUND_COMPLETED entries; one
 * the provider made and the ledger lacks is reported, not healed: its refund workflow owns it and
 * settles by the provider's record. Transfers out (withdrawals, settlements, payout items) the
 * same way, by their id, against the amount their completing entry sent to provider clearing.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { QueryTypes, type Sequelize } from 'sequelize';
import { ProviderCallbackService } from '../../api/charges/callbacks/service';
import { createLogger } from '../../core/logger';
import {
  ProviderError,
  isStatementProvider,
  type PixProvider,
  type StatementPayment,
  type StatementProvider,
  type StatementTransfer,
} from '../../core/provider';
import { accounts } from '../../core/ledger/accounts';
import { Charge } from '../../db/models';
import type {
  ReconciliationCounts,
  ReconciliationDifference,
  ReconciliationResult,
} from '../../workflows/reconciliations/types';

const logger = createLogger('reconciliations');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ReconciliationActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  statementProvider?: StatementProvider;
}

/** Brasília has had no daylight saving since 2019: a day starts at 03:00Z. */
export function brasiliaDayRange(from: string, to: string): { from: string; to: string } {
  const end = new Date(`${to}T00:00:00-03:00`);
  end.setUTCDate(end.getUTCDate() + 1);
  return { from: new Date(`${from}T00:00:00-03:00`).toISOString(), to: end.toISOString() };
}

interface LedgerPaid {
  id: string;
  provider_charge_id: string | null;
  end_to_end_id: string | null;
  gross_cents: string;
}

export function createReconciliationActivities(deps: ReconciliationActivityDeps) {
  const { sequelize } = deps;
  const statements = deps.statementProvider ?? (isStatementProvider(deps.provider) ? deps.provider : undefined);

  /**
   * Compares, heals lost payments through the normal path, and stores the report (idempotent).
   * A failure carries our words only: the workflow stores its message as the report's
   * failureReason, which merchants read, and the provider's or the network's own text may name
   * the supplier, hosts or paths. The whole error goes to the worker's log.
   */
  async function runReconciliation(args: { reconciliationId: string }): Promise<ReconciliationResult> {
    try {
      return await reconcile(args);
    } catch (err) {
      if (err instanceof ApplicationFailure) throw err;
      logger.warn({ err, reconciliationId: args.reconciliationId }, 'reconciliation attempt failed');
      if (err instanceof ProviderError)
        throw ApplicationFailure.retryable(
          `the provider’s statement could not be read (${err.code})`,
          'StatementUnavailable',
        );
      throw ApplicationFailure.retryable(
        'the reconciliation could not be completed (internal error)',
        'ReconciliationInternalError',
      );
    }
  }

  async function reconcile(args: { reconciliationId: string }): Promise<ReconciliationResult> {
    const [row] = await sequelize.query<{
      merchant_id: string | null;
      from_date: string;
      to_date: string;
      status: string;
    }>(
      `SELECT merchant_id, to_char(from_date, 'YYYY-MM-DD') AS from_date, to_char(to_date, 'YYYY-MM-DD') AS to_date, status FROM reconciliations WHERE id = :id`,
      { replacements: { id: args.reconciliationId }, type: QueryTypes.SELECT },
    );
    if (!row) throw new Error(`reconciliation ${args.reconciliationId} not found`);
    if (!statements) throw new Error('the provider client serves no statement');
    const range = brasiliaDayRange(row.from_date, row.to_date);
    const statement = await statements.getStatement(range);

    // Ours: the statement's payments for this merchant's charges (by provider charge id).
    const providerIds = statement.payments.map((p) => p.providerChargeId);
    const ours = providerIds.length
      ? await Charge.findAll({
          where: { ...(row.merchant_id ? { merchantId: row.merchant_id } : {}), providerChargeId: providerIds },
        })
      : [];
    const chargeByProviderId = new Map(ours.map((c) => [c.providerChargeId as string, c]));
    // The ledger side: CHARGE_PAID entries of the merchant's Pix charges paid in the range, plus
    // those of the charges on the statement (paid_at may sit just across a boundary).
    const ledger = await sequelize.query<LedgerPaid>(
      `SELECT c.id, c.provider_charge_id, c.end_to_end_id, SUM(p.amount_cents) FILTER (WHERE p.amount_cents > 0) AS gross_cents
       FROM charges c
       JOIN ledger_transactions t ON t.movement_key = 'charge-paid:' || c.id
       JOIN ledger_postings p ON p.transaction_id = t.id
       WHERE ${inScope('c')} AND c.method = 'PIX'
         AND ((c.paid_at >= :from AND c.paid_at < :to) OR c.id IN (:ids))
       GROUP BY c.id`,
      {
        replacements: {
          merchantId: row.merchant_id,
          from: range.from,
          to: range.to,
          ids: ours.length ? ours.map((c) => c.id) : [null],
        },
        type: QueryTypes.SELECT,
      },
    );
    const ledgerById = new Map(ledger.map((l) => [l.id, l]));

    const counts: ReconciliationCounts = {
      matched: 0,
      missingInLedger: 0,
      missingAtProvider: 0,
      amountMismatch: 0,
      healed: 0,
    };
    const differences: ReconciliationDifference[] = [];
    const seen = new Set<string>();
    const ctx = Context.current();
    const normalPath = new ProviderCallbackService({ sequelize, temporal: ctx.client, taskQueue: ctx.info.taskQueue });

    for (const payment of statement.payments) {
      const charge = chargeByProviderId.get(payment.providerChargeId);
      if (!charge) continue; // another merchant's, or not ours at all
      seen.add(charge.id);
      const entry = ledgerById.get(charge.id);
      const diff = (
        kind: ReconciliationDifference['kind'],
        healed: boolean,
        resolution: string | null,
      ): ReconciliationDifference => ({
        kind,
        subject: 'PAYMENT',
        chargeId: charge.id,
        refundId: null,
        transferId: null,
        transferKind: null,
        providerChargeId: payment.providerChargeId,
        endToEndId: payment.endToEndId,
        providerAmountCents: payment.amountCents,
        ledgerAmountCents: entry ? Number(entry.gross_cents) : null,
        healed,
        resolution,
      });
      if (!entry) {
        const outcome = await normalPath.settleClaim(charge, confirmation(payment));
        counts.missingInLedger++;
        counts.healed++;
        differences.push(diff('MISSING_IN_LEDGER', true, outcome));
      } else if (Number(entry.gross_cents) !== payment.amountCents || entry.end_to_end_id !== payment.endToEndId) {
        counts.amountMismatch++;
        differences.push(diff('AMOUNT_MISMATCH', false, null));
      } else {
        counts.matched++;
      }
    }
    for (const entry of ledger) {
      if (seen.has(entry.id)) continue;
      counts.missingAtProvider++;
      differences.push({
        kind: 'MISSING_AT_PROVIDER',
        subject: 'PAYMENT',
        chargeId: entry.id,
        refundId: null,
        transferId: null,
        transferKind: null,
        providerChargeId: entry.provider_charge_id,
        endToEndId: entry.end_to_end_id,
        providerAmountCents: null,
        ledgerAmountCents: Number(entry.gross_cents),
        healed: false,
        resolution: null,
      });
    }

    await compareReturns(row.merchant_id, range, statement.transfers, { counts, differences });
    await compareTransfers(row.merchant_id, range, statement.transfers, { counts, differences });

    await sequelize.query(
      `UPDATE reconciliations SET status = 'COMPLETED', completed_at = now(), matched_count = :matched, missing_in_ledger_count = :missingInLedger,
         missing_at_provider_count = :missingAtProvider, amount_mismatch_count = :amountMismatch, healed_count = :healed, differences = CAST(:differences AS jsonb)
       WHERE id = :id AND status = 'RUNNING'`,
      { replacements: { id: args.reconciliationId, ...counts, differences: JSON.stringify(differences) } },
    );
    return { counts, differences };
  }

  /** Devoluções: the statement's RETURNs of this merchant's refunds against REFUND_COMPLETED entries. */
  async function compareReturns(
    merchantId: string | null,
    range: DayRange,
    transfers: StatementTransfer[],
    report: Report,
  ): Promise<void> {
    const returns = transfers.filter((t) => t.kind === 'RETURN' && t.status === 'COMPLETED' && UUID.test(t.reference));
    const refunds = await sequelize.query<OutgoingRow>(
      `SELECT r.id, NULL AS transfer_kind, r.charge_id, r.status = 'PROCESSING' AS in_progress, r.end_to_end_id,
         r.settled_at >= :from AND r.settled_at < :to AS in_range,
         (SELECT SUM(p.amount_cents) FILTER (WHERE p.amount_cents > 0) FROM ledger_transactions t JOIN ledger_postings p ON p.transaction_id = t.id
          WHERE t.movement_key = 'refund-complete:' || r.id) AS ledger_cents
       FROM refunds r
       WHERE ${inScope('r')} AND ((r.settled_at >= :from AND r.settled_at < :to) OR r.id IN (:ids))`,
      {
        replacements: { merchantId, from: range.from, to: range.to, ids: idsOrNull(returns) },
        type: QueryTypes.SELECT,
      },
    );
    compareOutgoing('RETURN', returns, refunds, report);
  }

  /**
   * Transfers out (withdrawals, settlements, payout items): the statement's completed TRANSFERs
   * against the money the ledger sent to provider clearing for them (WITHDRAWAL_COMPLETED,
   * PAYOUT_ITEM_PAID; the fee is ours and never reaches the provider).
   */
  async function compareTransfers(
    merchantId: string | null,
    range: DayRange,
    transfers: StatementTransfer[],
    report: Report,
  ): Promise<void> {
    const sent = transfers.filter((t) => t.kind === 'TRANSFER' && t.status === 'COMPLETED' && UUID.test(t.reference));
    const clearing = `(SELECT SUM(p.amount_cents) FROM ledger_transactions t JOIN ledger_postings p ON p.transaction_id = t.id
        JOIN ledger_accounts a ON a.id = p.account_id AND a.code = '${accounts.providerClearing}' WHERE t.movement_key = :prefix || x.id)`;
    const rows = await sequelize.query<OutgoingRow>(
      `SELECT x.id, 'WITHDRAWAL' AS transfer_kind, NULL AS charge_id, x.status = 'PROCESSING' AS in_progress, x.provider_end_to_end_id AS end_to_end_id,
         x.processed_at >= :from AND x.processed_at < :to AS in_range, ${clearing.replace(':prefix', "'withdrawal-complete:'")} AS ledger_cents
       FROM withdrawals x
       WHERE ${inScope('x')} AND ((x.processed_at >= :from AND x.processed_at < :to) OR x.id IN (:ids))
       UNION ALL
       SELECT x.id, 'PAYOUT_ITEM', NULL, x.status IN ('PENDING', 'SENDING'), x.end_to_end_id,
         x.settled_at >= :from AND x.settled_at < :to, ${clearing.replace(':prefix', "'payout-item-paid:'")}
       FROM payout_items x
       WHERE ${inScope('x')} AND ((x.settled_at >= :from AND x.settled_at < :to) OR x.id IN (:ids))`,
      { replacements: { merchantId, from: range.from, to: range.to, ids: idsOrNull(sent) }, type: QueryTypes.SELECT },
    );
    compareOutgoing('TRANSFER', sent, rows, report);
  }

  async function failReconciliation(args: { reconciliationId: string; reason: string }): Promise<void> {
    await sequelize.query(
      `UPDATE reconciliations SET status = 'FAILED', completed_at = now(), failure_reason = :reason WHERE id = :id AND status = 'RUNNING'`,
      {
        replacements: { id: args.reconciliationId, reason: args.reason.slice(0, 500) },
      },
    );
  }

  /**
   * The daily run's rows: one reconciliation of `day` for every merchant the day's statement or
   * ledger mentions (a lost payment's merchant has nothing in the ledger, only on the statement).
   * Idempotent: a merchant's scheduled row for the day is created once (reconciliations_daily_once).
   */
  async function prepareDailyReconciliations(args: { day: string }): Promise<string[]> {
    if (!statements) throw new Error('the provider client serves no statement');
    const range = brasiliaDayRange(args.day, args.day);
    const statement = await statements.getStatement(range);
    const providerIds = statement.payments.map((p) => p.providerChargeId);
    // Money out counts too: a merchant whose day had only a withdrawal or a devolução is reconciled.
    const references = statement.transfers.filter((t) => UUID.test(t.reference));
    const merchants = await sequelize.query<{ merchant_id: string }>(
      `SELECT merchant_id FROM charges
       WHERE method = 'PIX' AND ((paid_at >= :from AND paid_at < :to) OR provider_charge_id IN (:providerIds))
       UNION SELECT merchant_id FROM refunds WHERE (settled_at >= :from AND settled_at < :to) OR id IN (:references)
       UNION SELECT merchant_id FROM withdrawals WHERE (processed_at >= :from AND processed_at < :to) OR id IN (:references)
       UNION SELECT merchant_id FROM payout_items WHERE (settled_at >= :from AND settled_at < :to) OR id IN (:references)`,
      {
        replacements: {
          from: range.from,
          to: range.to,
          providerIds: providerIds.length ? providerIds : [null],
          references: idsOrNull(references),
        },
        type: QueryTypes.SELECT,
      },
    );
    const ids: string[] = [];
    for (const { merchant_id } of merchants) {
      const [row] = await sequelize.query<{ id: string }>(
        `WITH created AS (
           INSERT INTO reconciliations (id, merchant_id, from_date, to_date, scheduled) VALUES (gen_random_uuid(), :merchantId, :day, :day, TRUE)
           ON CONFLICT (merchant_id, from_date) WHERE scheduled DO NOTHING RETURNING id)
         SELECT id FROM created UNION ALL SELECT id FROM reconciliations WHERE merchant_id = :merchantId AND from_date = :day AND scheduled LIMIT 1`,
        { replacements: { merchantId: merchant_id, day: args.day }, type: QueryTypes.SELECT },
      );
      ids.push(row.id);
    }
    return ids;
  }

  return { runReconciliation, failReconciliation, prepareDailyReconciliations };
}

type DayRange = { from: string; to: string };

/** A merchant's rows, or every merchant's for a platform-wide run (merchantId null: operators only). */
const inScope = (alias: string) => `(CAST(:merchantId AS uuid) IS NULL OR ${alias}.merchant_id = :merchantId)`;
type Report = { counts: ReconciliationCounts; differences: ReconciliationDifference[] };

/** A refund, withdrawal or payout item of the merchant, with what its completing ledger entry sent out. */
interface OutgoingRow {
  id: string;
  transfer_kind: 'WITHDRAWAL' | 'PAYOUT_ITEM' | null;
  charge_id: string | null;
  /** Its workflow has not settled it yet (it settles by the provider's record). */
  in_progress: boolean;
  end_to_end_id: string | null;
  ledger_cents: string | null;
  in_range: boolean;
}

const idsOrNull = (items: StatementTransfer[]) => (items.length ? items.map((t) => t.reference) : [null]);

/**
 * Money that left through the provider (devoluções, transfers), by our reference. One the
 * provider made that the ledger lacks is reported, never healed here: the workflow that sent it
 * owns it and settles by the provider's record (IN_PROGRESS while it runs).
 */
function compareOutgoing(
  subject: 'RETURN' | 'TRANSFER',
  statement: StatementTransfer[],
  rows: OutgoingRow[],
  report: Report,
): void {
  const { counts, differences } = report;
  const byId = new Map(rows.map((r) => [r.id, r]));
  const seen = new Set<string>();
  const base = (r: OutgoingRow) => ({
    subject,
    chargeId: r.charge_id,
    refundId: subject === 'RETURN' ? r.id : null,
    transferId: subject === 'TRANSFER' ? r.id : null,
    transferKind: r.transfer_kind,
    providerChargeId: null,
    healed: false,
  });
  for (const item of statement) {
    const row = byId.get(item.reference);
    if (!row) continue; // another merchant's
    seen.add(row.id);
    const ledgerCents = row.ledger_cents === null ? null : Number(row.ledger_cents);
    const diff = {
      ...base(row),
      endToEndId: item.endToEndId,
      providerAmountCents: item.amountCents,
      ledgerAmountCents: ledgerCents,
    };
    if (ledgerCents === null) {
      counts.missingInLedger++;
      differences.push({
        ...diff,
        kind: 'MISSING_IN_LEDGER',
        resolution: row.in_progress ? `${subject === 'RETURN' ? 'REFUND' : 'TRANSFER'}_IN_PROGRESS` : null,
      });
    } else if (ledgerCents !== item.amountCents) {
      counts.amountMismatch++;
      differences.push({ ...diff, kind: 'AMOUNT_MISMATCH', resolution: null });
    } else {
      counts.matched++;
    }
  }
  for (const row of rows) {
    if (seen.has(row.id) || row.ledger_cents === null || !row.in_range) continue;
    counts.missingAtProvider++;
    differences.push({
      ...base(row),
      kind: 'MISSING_AT_PROVIDER',
      endToEndId: row.end_to_end_id,
      providerAmountCents: null,
      ledgerAmountCents: Number(row.ledger_cents),
      resolution: null,
    });
  }
}

function confirmation(p: StatementPayment) {
  return {
    providerChargeId: p.providerChargeId,
    endToEndId: p.endToEndId,
    amountCents: p.amountCents,
    paidAt: p.paidAt,
    payer: null,
  };
}

export type ReconciliationActivities = ReturnType<typeof createReconciliationActivities>;
