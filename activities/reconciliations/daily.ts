import { pspConnectionStore } from '../../db/connections';
import { comparisonStore, reconciliationStore } from '../../db/reconciliations';
import type { ReconciliationDeps } from './deps';
import { UUID, brasiliaDayRange, statementOf } from './statement';

/**
 * The daily run's rows: one reconciliation of `day` for every merchant the platform account's
 * statement or ledger mentions that day (a lost payment's merchant has nothing in the ledger, only
 * on the statement), and one for every active PSP connection, day or no day: a connected
 * merchant's own account is compared every day (its saldo against the ledger mirror), whether or
 * not the day moved money there. Idempotent: a scheduled row is created once per merchant and day
 * (reconciliations_daily_once), and once per connection and day (reconciliations_daily_connection_once).
 */
export async function prepareDailyReconciliations(deps: ReconciliationDeps, args: { day: string }): Promise<string[]> {
  const { sequelize } = deps;
  const range = brasiliaDayRange(args.day, args.day);
  const statement = await statementOf(deps.statements, range);
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
  for (const connection of await pspConnectionStore.activeConnections(sequelize))
    ids.push(await reconciliationStore.dailyConnectionRun(sequelize, connection, args.day));
  return ids;
}
