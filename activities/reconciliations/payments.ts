/**
 * Payments: the statement's payments of this merchant's charges against their CHARGE_PAID
 * entries, by provider charge id. One on the statement with no entry is a lost callback, healed
 * through the normal path (ProviderCallbackService.settleClaim: signal the lifecycle, or
 * settleLatePayment when the run closed), which asks the provider again before crediting.
 */
import { Context } from '@temporalio/activity';
import type { StatementPayment } from '../../core/provider';
import { ProviderCallbackService, chargeStore, type Charge } from '../../db/charges';
import { comparisonStore, type LedgerPaid } from '../../db/reconciliations';
import type { ReconciliationDifference } from '../../workflows/reconciliations/types';
import type { ReconciliationDeps } from './deps';
import type { DayRange, Report, Scope } from './statement';

export async function comparePayments(
  deps: ReconciliationDeps,
  scope: Scope,
  range: DayRange,
  payments: StatementPayment[],
  report: Report,
): Promise<void> {
  const { merchantId, connectionId } = scope;
  const { counts, differences } = report;
  // Ours: the statement's payments for this merchant's charges (by provider charge id).
  const providerIds = payments.map((p) => p.providerChargeId);
  const ours = providerIds.length ? await chargeStore.chargesByProviderIds(providerIds, merchantId) : [];
  const chargeByProviderId = new Map(ours.map((c) => [c.providerChargeId as string, c]));
  // The ledger side: CHARGE_PAID entries of the merchant's Pix charges issued on this account and
  // paid in the range, plus those of the charges on the statement (paid_at may sit just across a
  // boundary). A charge issued on another account is not on this statement: not missing from it.
  const ledger = await comparisonStore.paidCharges(deps.sequelize, {
    merchantId,
    connectionId,
    from: range.from,
    to: range.to,
    chargeIds: ours.map((c) => c.id),
  });
  const ledgerById = new Map(ledger.map((l) => [l.chargeId, l]));
  const seen = new Set<string>();
  const normalPath = normalPathOf(deps);

  for (const payment of payments) {
    const charge = chargeByProviderId.get(payment.providerChargeId);
    if (!charge) continue; // another merchant's, or not ours at all
    seen.add(charge.id);
    const entry = ledgerById.get(charge.id);
    if (!entry) {
      const outcome = await normalPath.settleClaim(charge, confirmation(payment));
      counts.missingInLedger++;
      counts.healed++;
      differences.push(paymentDifference('MISSING_IN_LEDGER', charge, payment, entry, outcome));
    } else if (entry.grossCents !== payment.amountCents || entry.endToEndId !== payment.endToEndId) {
      counts.amountMismatch++;
      differences.push(paymentDifference('AMOUNT_MISMATCH', charge, payment, entry, null));
    } else {
      counts.matched++;
    }
  }
  for (const entry of ledger) {
    if (seen.has(entry.chargeId)) continue;
    counts.missingAtProvider++;
    differences.push(missingAtProvider(entry));
  }
}

/** The path a provider callback takes: a payment the ledger lacks is claimed as if its callback came now. */
function normalPathOf(deps: ReconciliationDeps): ProviderCallbackService {
  const ctx = Context.current();
  return new ProviderCallbackService({
    sequelize: deps.sequelize,
    temporal: ctx.client,
    taskQueue: ctx.info.taskQueue,
    logger: deps.logger.child({ module: 'provider-callbacks' }),
  });
}

/** A payment on the statement that the ledger lacks (healed, with the claim's outcome) or disagrees with. */
function paymentDifference(
  kind: 'MISSING_IN_LEDGER' | 'AMOUNT_MISMATCH',
  charge: Charge,
  payment: StatementPayment,
  entry: LedgerPaid | undefined,
  resolution: string | null,
): ReconciliationDifference {
  return {
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
    healed: kind === 'MISSING_IN_LEDGER',
    resolution,
  };
}

function missingAtProvider(entry: LedgerPaid): ReconciliationDifference {
  return {
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
  };
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
