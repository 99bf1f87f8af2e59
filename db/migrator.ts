/**
 * Versioned migrations with umzug, recorded in the SequelizeMeta table. The list is explicit
 * (not a glob) so the same code runs from TypeScript sources and from compiled output.
 * Migrations run under the migration role (MIGRATION_DATABASE_URL, scripts/lib/databaseRoles.ts),
 * which owns the schema; under the runtime role (DATABASE_URL), which creates nothing, a database
 * that is up to date is only read, and one with migrations pending is refused with what to run.
 */
import { Umzug, type MigrationParams, type UmzugStorage } from 'umzug';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createSequelize } from './sequelize';
import { initialSchema } from './migrations/0001_initial';
import { partnerContract } from './migrations/0002_partner_contract';
import { withdrawals } from './migrations/0003_withdrawals';
import { payouts } from './migrations/0004_payouts';
import { webhookDeliveries } from './migrations/0005_webhook_deliveries';
import { chargeSettlementGuards } from './migrations/0007_charge_settlement_guards';
import { credentialScopes } from './migrations/0008_credential_scopes';
import { idempotencyHolder } from './migrations/0010_idempotency_holder';
import { outgoingMails } from './migrations/0011_outgoing_mails';
import { appUsers } from './migrations/0012_app_users';
import { credentialNames } from './migrations/0013_credential_names';
import { chargePayerDetails } from './migrations/0014_charge_payer_details';
import { chargeBoletos } from './migrations/0015_charge_boletos';
import { refunds } from './migrations/0016_refunds';
import { boletoBatches } from './migrations/0017_boleto_batches';
import { refundDestinations } from './migrations/0018_refund_destinations';
import { receiptDocuments } from './migrations/0019_receipt_documents';
import { marketplaceCheckouts } from './migrations/0020_marketplace_checkouts';
import { callbackHealth } from './migrations/0021_callback_health';
import { dashboard } from './migrations/0022_dashboard';
import { reconciliations } from './migrations/0024_reconciliations';
import { settlements } from './migrations/0025_settlements';
import { medInfractions } from './migrations/0026_med_infractions';
import { platformOperators } from './migrations/0027_platform_operators';
import { refundOrigin } from './migrations/0028_refund_origin';
import { webhookAttemptRetryAfter } from './migrations/0029_webhook_attempt_retry_after';
import { webhookDeliveryReplay } from './migrations/0030_webhook_delivery_replay';
import { deliveryLease } from './migrations/0031_delivery_lease';
import { idempotencyKeyBinding } from './migrations/0032_idempotency_key_binding';
import { webhookRotationId } from './migrations/0033_webhook_rotation_id';
import { pspConnections } from './migrations/0034_psp_connections';
import { chargePspConnection } from './migrations/0035_charge_psp_connection';
import { reconciliationConnection } from './migrations/0036_reconciliation_connection';
import { medInfractionConnection } from './migrations/0037_med_infraction_connection';
import { pspBalanceReadings } from './migrations/0038_psp_balance_readings';
import { splitSends } from './migrations/0039_split_sends';
import { medClaimParties } from './migrations/0040_med_claim_parties';
import { medCaseSteps } from './migrations/0041_med_case_steps';
import { pendingConnectedBoletos } from './migrations/0042_pending_connected_boletos';
import { ledgerPostingsByAccount } from './migrations/0043_ledger_postings_by_account';
import { medPspOutcome } from './migrations/0044_med_psp_outcome';
import { subscriptions } from './migrations/0045_subscriptions';
import { chargesByMethod } from './migrations/0046_charges_by_method';
import { dashboardPayerMonths } from './migrations/0047_dashboard_payer_months';

export interface Migration {
  name: string;
  up: (params: MigrationParams<Sequelize>) => Promise<void>;
}

const migrations: Migration[] = [
  initialSchema,
  partnerContract,
  withdrawals,
  payouts,
  webhookDeliveries,
  chargeSettlementGuards,
  credentialScopes,
  idempotencyHolder,
  outgoingMails,
  appUsers,
  credentialNames,
  chargePayerDetails,
  chargeBoletos,
  refunds,
  boletoBatches,
  refundDestinations,
  receiptDocuments,
  marketplaceCheckouts,
  callbackHealth,
  dashboard,
  reconciliations,
  settlements,
  medInfractions,
  platformOperators,
  refundOrigin,
  webhookAttemptRetryAfter,
  webhookDeliveryReplay,
  deliveryLease,
  idempotencyKeyBinding,
  webhookRotationId,
  pspConnections,
  chargePspConnection,
  reconciliationConnection,
  medInfractionConnection,
  pspBalanceReadings,
  splitSends,
  medClaimParties,
  medCaseSteps,
  pendingConnectedBoletos,
  ledgerPostingsByAccount,
  medPspOutcome,
  subscriptions,
  chargesByMethod,
  dashboardPayerMonths,
];

export async function runMigrations(sequelize: Sequelize): Promise<string[]> {
  const umzug = new Umzug<Sequelize>({
    migrations: migrations.map((m) => ({ name: m.name, up: m.up })),
    context: sequelize,
    storage: new MetaTableStorage(sequelize),
    logger: undefined,
  });
  // Two processes (api and worker) may start together: serialise migrations with a
  // transaction-scoped advisory lock (released at commit, whichever pool connection ran it).
  return sequelize.transaction(async (transaction) => {
    await sequelize.query('SELECT pg_advisory_xact_lock(727001)', { transaction });
    const pending = await umzug.pending();
    if (pending.length > 0 && !(await mayMigrate(sequelize)))
      throw new Error(
        `${pending.length} migration(s) pending (${pending.map((m) => m.name).join(', ')}) and this login may not ` +
          'change the schema: run them under the migration role first (`gateway migrate` with MIGRATION_DATABASE_URL; docs/operations.md)',
      );
    const applied = await umzug.up();
    return applied.map((m) => m.name);
  });
}

/** Whether the login may create tables here (the migration role, or a single-login setup's owner). */
async function mayMigrate(sequelize: Sequelize): Promise<boolean> {
  const [row] = await sequelize.query<{ may: boolean }>(
    `SELECT has_schema_privilege(current_user, 'public', 'CREATE') AS may`,
    { type: QueryTypes.SELECT },
  );
  return row.may;
}

/**
 * umzug's SequelizeStorage, same table (SequelizeMeta, one `name` column), except that reading
 * never creates it: SequelizeStorage's `CREATE TABLE IF NOT EXISTS` before every read needs the
 * CREATE privilege even when the table exists, which the runtime role does not have.
 */
class MetaTableStorage implements UmzugStorage<Sequelize> {
  constructor(private readonly sequelize: Sequelize) {}

  private async tableExists(): Promise<boolean> {
    const [row] = await this.sequelize.query<{ found: string | null }>(
      `SELECT to_regclass('public."SequelizeMeta"')::text AS found`,
      { type: QueryTypes.SELECT },
    );
    return row.found !== null;
  }

  private async ensureTable(): Promise<void> {
    if (!(await this.tableExists()))
      await this.sequelize.query(
        `CREATE TABLE IF NOT EXISTS "SequelizeMeta" (name VARCHAR(255) NOT NULL UNIQUE PRIMARY KEY)`,
      );
  }

  async executed(): Promise<string[]> {
    if (!(await this.tableExists())) return [];
    const rows = await this.sequelize.query<{ name: string }>(`SELECT name FROM "SequelizeMeta" ORDER BY name`, {
      type: QueryTypes.SELECT,
    });
    return rows.map((r) => r.name);
  }

  async logMigration({ name }: { name: string }): Promise<void> {
    await this.ensureTable();
    await this.sequelize.query(`INSERT INTO "SequelizeMeta" (name) VALUES ($1)`, { bind: [name] });
  }

  async unlogMigration({ name }: { name: string }): Promise<void> {
    await this.ensureTable();
    await this.sequelize.query(`DELETE FROM "SequelizeMeta" WHERE name = $1`, { bind: [name] });
  }
}

/**
 * A service's migrations at start (api/server.ts, workers/main.ts): with MIGRATION_DATABASE_URL's
 * login when it differs from DATABASE_URL (a pool of its own, closed after), else on the service's
 * own pool, where a runtime role finds nothing pending or is refused (runMigrations).
 */
export async function migrateAtStart(
  sequelize: Sequelize,
  config: { databaseUrl: string; migrationDatabaseUrl: string },
): Promise<string[]> {
  if (config.migrationDatabaseUrl === config.databaseUrl) return runMigrations(sequelize);
  const owner = createSequelize(config.migrationDatabaseUrl, { poolMax: 2 });
  try {
    return await runMigrations(owner);
  } finally {
    await owner.close();
  }
}
