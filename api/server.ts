/** API process entry point (started by `npm start`). */
import { Client, Connection } from '@temporalio/client';
import { developmentWarning, loadConfig } from '../config';
import { createLogger } from '../core/logger';
import { migrateAtStart } from '../db/migrator';
import { createSequelize } from '../db/sequelize';
import { createApp } from './app';
import { EfiClient } from '../activities/provider/efi/efiClient';
import { connectionFrom } from '../activities/provider/pixApi/fromConfig';
import { paymentSimulatorFor } from './checkouts/page/simulate';
import { stopOnSignals } from '../core/shutdown';
import { temporalConnectionOptions } from '../core/temporal/connection';
import { credentialsKeyring } from '../core/crypto/envelope';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('api', config.log);
  const development = developmentWarning(config);
  if (development) logger.warn(development);
  const sequelize = createSequelize(config.databaseUrl);
  await migrateAtStart(sequelize, config);
  const connection = await Connection.connect(temporalConnectionOptions(config.temporal));
  const temporal = new Client({ connection, namespace: config.temporal.namespace });
  // The PSP account's balance for /metrics: Efí's own route, on a connection of the API's own.
  const psp =
    config.pixTransfers.api === 'efi' ? new EfiClient(connectionFrom(config), config.pixTransfers.efiBaseUrl) : null;
  const app = createApp({
    sequelize,
    temporal,
    taskQueue: config.temporal.taskQueue,
    logger,
    credentialsEncryptionKey: config.credentialsEncryptionKey,
    credentialsKeyring: credentialsKeyring(config.credentialsEncryptionKey, config.connectionMasterKeys),
    accountModelDefault: config.accountModelDefault,
    providerCallbackSecret: config.provider.callbackSecret,
    pixWebhookSecret: config.pixApi.webhookSecret,
    defaultFee: { bps: config.defaultPixFeeBps, fixedCents: config.defaultPixFeeFixedCents },
    defaultChargeTtlSeconds: config.defaultChargeTtlSeconds,
    idempotencyTtlHours: config.idempotencyTtlHours,
    rateLimitPerMinute: config.rateLimitPerMinute,
    checkoutStreams: config.checkoutStreams,
    trustProxy: config.trustProxy,
    exposeBuildInfo: config.exposeBuildInfo,
    build: config.build,
    allowPrivateWebhookDestinations: config.allowPrivateWebhookDestinations,
    webhookPrivateReceivers: config.webhookPrivateReceivers,
    payoutSettings: config.payouts,
    auth: config.auth,
    storage: config.storage,
    publicBaseUrl: config.publicBaseUrl,
    smtpUrl: config.smtpUrl,
    receiptSigningKey: config.receiptSigningKey,
    metricsToken: config.metricsToken,
    pspBalance: psp ? () => psp.balanceCents() : null,
    med: config.med,
    // The checkout page's "Simular pagamento" pays at the sandbox provider; never in production.
    paymentSimulator: paymentSimulatorFor(config.env, config.provider.baseUrl, config.sandboxControlToken ?? undefined),
    production: config.env === 'production',
    receiptRenderThreads: config.receiptRenderThreads,
    platformInstitutionName: config.platformInstitutionName,
  });
  const server = app.listen(config.port, config.host, () =>
    logger.info({ port: config.port, host: config.host }, 'api listening'),
  );
  // Once: a second server.close() answers at once with an error, and its callback used to close
  // the database under the requests the first one was waiting for.
  stopOnSignals(
    async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await connection.close();
      await sequelize.close();
      logger.info('api stopped');
      process.exit(0);
    },
    { logger },
  );
}

main().catch((err) => {
  // eslint-disable-next-line no-console
  console.error('api failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
