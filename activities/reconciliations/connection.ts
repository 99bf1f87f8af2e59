/**
 * A connected merchant's own PSP account (issue 37): its money never passes through the
 * platform's, so the ledger is a mirror of what that account did, compared here with the account
 * itself, through the merchant's own connection:
 * - its Pix received (API Pix GET /pix on the connection, the statement's payments) against the
 *   CHARGE_PAID entries of the merchant's charges issued on that connection, as the platform
 *   account's are (a lost notification is healed through the normal path, reported healed);
 * - its sends (Efí GET /v2/gn/pix/enviados on the connection) against the payout items of the
 *   batches paid from it;
 * - its balance (Efí GET /v2/gn/saldo on the connection) against the merchant's ledger mirror
 *   (available + reserved + blocked: comparisonStore.ledgerMirrorCents says why that sum), to the
 *   cent: subject BALANCE, AMOUNT_MISMATCH when they differ. Devoluções have no list by day in API
 *   Pix (the standard lists them under the Pix they return); the balance covers them.
 */
import { isStatementProvider, type PixProvider } from '../../core/provider';
import { comparisonStore } from '../../db/reconciliations';
import { saldoBesideMirror } from '../connections/saldo';
import type { ReconciliationDeps } from './deps';
import { compareTransfers } from './outgoing';
import { comparePayments } from './payments';
import { statementOf, type DayRange, type Report } from './statement';

export async function reconcileConnection(
  deps: ReconciliationDeps,
  scope: { merchantId: string; connectionId: string },
  range: DayRange,
  report: Report,
): Promise<void> {
  const { provider } = await deps.accounts.forConnection(scope.connectionId);
  const statement = await statementOf(isStatementProvider(provider) ? provider : undefined, range);
  await comparePayments(deps, scope, range, statement.payments, report);
  await compareTransfers(deps, scope, range, statement.transfers, report);
  await compareBalance(deps, scope.merchantId, provider, report);
}

/** The account's saldo against the ledger mirror, both read now as one pair (../connections/saldo.ts). */
async function compareBalance(
  deps: ReconciliationDeps,
  merchantId: string,
  provider: PixProvider,
  report: Report,
): Promise<void> {
  const { saldoCents: saldo, ledger } = await saldoBesideMirror(provider, async () => ({
    mirrorCents: await comparisonStore.ledgerMirrorCents(deps.sequelize, merchantId),
  }));
  const mirror = ledger.mirrorCents;
  if (saldo === mirror) {
    report.counts.matched++;
    return;
  }
  report.counts.amountMismatch++;
  report.differences.push({
    kind: 'AMOUNT_MISMATCH',
    subject: 'BALANCE',
    chargeId: null,
    refundId: null,
    transferId: null,
    transferKind: null,
    providerChargeId: null,
    endToEndId: null,
    providerAmountCents: saldo,
    ledgerAmountCents: mirror,
    healed: false,
    resolution: null,
  });
}
