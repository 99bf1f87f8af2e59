/**
 * Versioned migrations with umzug, recorded in the SequelizeMeta table. The list is explicit
 * (not a glob) so the same code runs from TypeScript sources and from compiled output.
 */
import { Umzug, SequelizeStorage, type MigrationParams } from 'umzug';
import type { Sequelize } from 'sequelize';
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
];

export async function runMigrations(sequelize: Sequelize): Promise<string[]> {
  const umzug = new Umzug<Sequelize>({
    migrations: migrations.map((m) => ({ name: m.name, up: m.up })),
    context: sequelize,
    storage: new SequelizeStorage({ sequelize }),
    logger: undefined,
  });
  // Two processes (api and worker) may start together: serialise migrations with a
  // transaction-scoped advisory lock (released at commit, whichever pool connection ran it).
  return sequelize.transaction(async (transaction) => {
    await sequelize.query('SELECT pg_advisory_xact_lock(727001)', { transaction });
    const applied = await umzug.up();
    return applied.map((m) => m.name);
  });
}
