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
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import { ProviderCallbackService } from '../../db/charges';
import {
  ProviderError,
  isStatementProvider,
  type PixProvider,
  type StatementPayment,
  type StatementProvider,
  type StatementTransfer,
} from '../../core/provider';
import { chargeStore } from '../../db/charges';
import { comparisonStore, reconciliationStore, type Outgoing } from '../../db/reconciliations';
import type {
  ReconciliationCounts,
  ReconciliationDifference,
  ReconciliationResult,
} from '../../workflows/reconciliations/types';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface ReconciliationActivityDeps {
  sequelize: Sequelize;
  provider: PixProvider;
  statementProvider?: StatementProvider;
  logger: Logger;
}

/** Brasília has had no daylight saving since 2019: a day starts at 03:00Z. */
export function brasiliaDayRange(from: string, to: string): { from: string; to: string } {
  const end = new Date(`${to}T00:00:00-03:00`);
  end.setUTCDate(end.getUTCDate() + 1);
  return { from: new Date(`${from}T00:00:00-03:00`).toISOString(), to: end.toISOString() };
}

export function createReconciliationActivities(deps: ReconciliationActivityDeps) {
  const { sequelize } = deps;
  const logger = deps.logger.child({ module: 'reconciliations' });
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
    const run = await reconciliationStore.findRun(sequelize, args.reconciliationId);
    if (!run) throw new Error(`reconciliation ${args.reconciliationId} not found`);
    if (!statements) throw new Error('the provider client serves no statement');
    const range = brasiliaDayRange(run.fromDate, run.toDate);
    const statement = await statements.getStatement(range);

    // Ours: the statement's payments for this merchant's charges (by provider charge id).
    const providerIds = statement.payments.map((p) => p.providerChargeId);
    const ours = providerIds.length ? await chargeStore.chargesByProviderIds(providerIds, run.merchantId) : [];
    const chargeByProviderId = new Map(ours.map((c) => [c.providerChargeId as string, c]));
    // The ledger side: CHARGE_PAID entries of the merchant's Pix charges paid in the range, plus
    // those of the charges on the statement (paid_at may sit just across a boundary).
    const ledger = await comparisonStore.paidCharges(sequelize, {
      merchantId: run.merchantId,
      from: range.from,
      to: range.to,
      chargeIds: ours.map((c) => c.id),
    });
    const ledgerById = new Map(ledger.map((l) => [l.chargeId, l]));

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
    const normalPath = new ProviderCallbackService({
      sequelize,
      temporal: ctx.client,
      taskQueue: ctx.info.taskQueue,
      logger: deps.logger.child({ module: 'provider-callbacks' }),
    });

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
        ledgerAmountCents: entry ? entry.grossCents : null,
        healed,
        resolution,
      });
      if (!entry) {
        const outcome = await normalPath.settleClaim(charge, confirmation(payment));
        counts.missingInLedger++;
        counts.healed++;
        differences.push(diff('MISSING_IN_LEDGER', true, outcome));
      } else if (entry.grossCents !== payment.amountCents || entry.endToEndId !== payment.endToEndId) {
        counts.amountMismatch++;
        differences.push(diff('AMOUNT_MISMATCH', false, null));
      } else {
        counts.matched++;
      }
    }
    for (const entry of ledger) {
      if (seen.has(entry.chargeId)) continue;
      counts.missingAtProvider++;
      differences.push({
        kind: 'MISSING_AT_PROVIDER',
        subject: 'PAYMENT',
        chargeId: entry.chargeId,
        refundId: null,
        transferId: null,
        transferKind: null,
        providerChargeId: entry.providerChargeId,
        endToEndId: entry.endToEndId,
        providerAmountCents: null,
        ledgerAmountCents: entry.grossCents,
        healed: false,
        resolution: null,
      });
    }

    await compareReturns(run.merchantId, range, statement.transfers, { counts, differences });
    await compareTransfers(run.merchantId, range, statement.transfers, { counts, differences });

    await reconciliationStore.completeRun(sequelize, args.reconciliationId, { counts, differences });
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
    const refunds = await comparisonStore.settledRefunds(sequelize, {
      merchantId,
      from: range.from,
      to: range.to,
      refundIds: returns.map((t) => t.reference),
    });
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
    const rows = await comparisonStore.settledTransfers(sequelize, {
      merchantId,
      from: range.from,
      to: range.to,
      transferIds: sent.map((t) => t.reference),
    });
    compareOutgoing('TRANSFER', sent, rows, report);
  }

  async function failReconciliation(args: { reconciliationId: string; reason: string }): Promise<void> {
    await reconciliationStore.failRun(sequelize, args.reconciliationId, args.reason);
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
    const merchants = await comparisonStore.merchantsOfDay(sequelize, {
      from: range.from,
      to: range.to,
      providerChargeIds: providerIds,
      references: references.map((t) => t.reference),
    });
    const ids: string[] = [];
    for (const merchantId of merchants) ids.push(await reconciliationStore.dailyRun(sequelize, merchantId, args.day));
    return ids;
  }

  return { runReconciliation, failReconciliation, prepareDailyReconciliations };
}

type DayRange = { from: string; to: string };

type Report = { counts: ReconciliationCounts; differences: ReconciliationDifference[] };

/**
 * Money that left through the provider (devoluções, transfers), by our reference. One the
 * provider made that the ledger lacks is reported, never healed here: the workflow that sent it
 * owns it and settles by the provider's record (IN_PROGRESS while it runs).
 */
function compareOutgoing(
  subject: 'RETURN' | 'TRANSFER',
  statement: StatementTransfer[],
  rows: Outgoing[],
  report: Report,
): void {
  const { counts, differences } = report;
  const byId = new Map(rows.map((r) => [r.id, r]));
  const seen = new Set<string>();
  const base = (r: Outgoing) => ({
    subject,
    chargeId: r.chargeId,
    refundId: subject === 'RETURN' ? r.id : null,
    transferId: subject === 'TRANSFER' ? r.id : null,
    transferKind: r.transferKind,
    providerChargeId: null,
    healed: false,
  });
  for (const item of statement) {
    const row = byId.get(item.reference);
    if (!row) continue; // another merchant's
    seen.add(row.id);
    const ledgerCents = row.ledgerCents;
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
        resolution: row.inProgress ? `${subject === 'RETURN' ? 'REFUND' : 'TRANSFER'}_IN_PROGRESS` : null,
      });
    } else if (ledgerCents !== item.amountCents) {
      counts.amountMismatch++;
      differences.push({ ...diff, kind: 'AMOUNT_MISMATCH', resolution: null });
    } else {
      counts.matched++;
    }
  }
  for (const row of rows) {
    if (seen.has(row.id) || row.ledgerCents === null || !row.inRange) continue;
    counts.missingAtProvider++;
    differences.push({
      ...base(row),
      kind: 'MISSING_AT_PROVIDER',
      endToEndId: row.endToEndId,
      providerAmountCents: null,
      ledgerAmountCents: row.ledgerCents,
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
