/**
 * A connected merchant's own PSP account (issue 37): its money never passes through the
 * platform's, so the ledger is a mirror of what that account did, compared here with the account
 * itself, through the merchant's own connection:
 * - its Pix received (API Pix GET /pix on the connection, the statement's payments) against the
 *   CHARGE_PAID entries of the merchant's charges issued on that connection, as the platform
 *   account's are (a lost notification is healed through the normal path, reported healed);
 * - its sends (Efí GET /v2/gn/pix/enviados on the connection) against the payout items of the
 *   batches paid from it and the split shares sent from it (SPLIT_SEND: a split recipient at
 *   another PSP, paid from the charge owner's account after settlement);
 * - its balance (Efí GET /v2/gn/saldo on the connection) against the merchant's ledger mirror
 *   (available + reserved + blocked: comparisonStore.ledgerMirrorCents says why that sum), to the
 *   cent: subject BALANCE, AMOUNT_MISMATCH when they differ. Devoluções have no list by day in API
 *   Pix (the standard lists them under the Pix they return); the balance covers them.
 */
import { isAccountBalanceProvider, isStatementProvider, ProviderError, type PixProvider } from '../../core/provider';
import { comparisonStore } from '../../db/reconciliations';
import type { ReconciliationDeps } from './deps';
import { compareTransfers } from './outgoing';
import { comparePayments } from './payments';
import { statementOf, type DayRange, type Report } from './statement';

/** How often the saldo is read again when the ledger moved while it was read. */
const BALANCE_READS = 3;

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

/**
 * The account's saldo against the ledger mirror, both read now. The ledger is read before and
 * after the saldo, and the saldo again while they differ (a payment credited in between), so a
 * difference is never our own race; a payment the PSP has and the ledger has not yet credited (its
 * notification in flight, or healed by this very run) is a real difference at this instant.
 */
async function compareBalance(
  deps: ReconciliationDeps,
  merchantId: string,
  provider: PixProvider,
  report: Report,
): Promise<void> {
  const saldoOf = async (): Promise<number> => {
    const cents = isAccountBalanceProvider(provider) ? await provider.accountBalanceCents() : null;
    if (cents === null)
      throw new ProviderError('the PSP tells no balance for this account', 'BALANCE_UNAVAILABLE', false);
    return cents;
  };
  let mirror = await comparisonStore.ledgerMirrorCents(deps.sequelize, merchantId);
  let saldo = await saldoOf();
  for (let read = 1; read < BALANCE_READS; read++) {
    const after = await comparisonStore.ledgerMirrorCents(deps.sequelize, merchantId);
    if (after === mirror) break;
    mirror = after;
    saldo = await saldoOf();
  }
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
