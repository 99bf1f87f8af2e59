/**
 * Money that left through the provider (devoluções, transfers), by our reference. One the
 * provider made that the ledger lacks is reported, never healed here: the workflow that sent it
 * owns it and settles by the provider's record (IN_PROGRESS while it runs).
 */
import type { StatementTransfer } from '../../core/provider';
import { comparisonStore, type Outgoing } from '../../db/reconciliations';
import type { ReconciliationDeps } from './deps';
import { UUID, type DayRange, type Report, type Scope } from './statement';

/** Devoluções: the statement's RETURNs of this merchant's refunds against REFUND_COMPLETED entries. */
export async function compareReturns(
  deps: ReconciliationDeps,
  scope: Scope,
  range: DayRange,
  transfers: StatementTransfer[],
  report: Report,
): Promise<void> {
  const returns = transfers.filter((t) => t.kind === 'RETURN' && t.status === 'COMPLETED' && UUID.test(t.reference));
  const refunds = await comparisonStore.settledRefunds(deps.sequelize, {
    ...scope,
    from: range.from,
    to: range.to,
    refundIds: returns.map((t) => t.reference),
  });
  compareOutgoing('RETURN', returns, refunds, report);
}

/**
 * Transfers out (withdrawals, settlements, payout items, split shares sent from a charge owner's
 * account): the statement's completed TRANSFERs against the money the ledger sent to provider
 * clearing for them (WITHDRAWAL_COMPLETED, PAYOUT_ITEM_PAID, SPLIT_SEND_COMPLETED; the fee is ours
 * and never reaches the provider).
 */
export async function compareTransfers(
  deps: ReconciliationDeps,
  scope: Scope,
  range: DayRange,
  transfers: StatementTransfer[],
  report: Report,
): Promise<void> {
  const sent = transfers.filter((t) => t.kind === 'TRANSFER' && t.status === 'COMPLETED' && UUID.test(t.reference));
  const rows = await comparisonStore.settledTransfers(deps.sequelize, {
    ...scope,
    from: range.from,
    to: range.to,
    transferIds: sent.map((t) => t.reference),
  });
  compareOutgoing('TRANSFER', sent, rows, report);
}

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
