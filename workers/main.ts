/** Worker process entry point: `node dist/workers/main.js` (started by `npm start`). */
import fs from 'node:fs';
import path from 'node:path';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { developmentWarning, loadConfig } from '../config';
import { createSequelize } from '../db/sequelize';
import { migrateAtStart } from '../db/migrator';
import { providerFrom } from '../activities/provider/providerFrom';
import { pspAccountsFrom } from '../activities/provider/accounts/pspAccounts';
import { createLogger } from '../core/logger';
import { createGatewayWorker } from './createWorker';
import { bundleWorkflowsInChild } from './bundleWorkflows';
import { prebuiltWorkflowBundle } from './prebuiltBundle';
import { ensureOutboxDispatcher } from './ensureOutboxDispatcher';
import { ensureJanitorSchedule } from './ensureJanitorSchedule';
import { ensureReconciliationSchedule } from './ensureReconciliationSchedule';
import { ensureMedSyncSchedule } from './ensureMedSyncSchedule';
import { ensurePixWebhook, ensureSubscriptionWebhooks, webhookKeys } from './ensurePixWebhook';
import { ensurePixSweepSchedule } from './ensurePixSweepSchedule';
import { ensureBalanceReadingSchedule } from './ensureBalanceReadingSchedule';
import { Client, Connection } from '@temporalio/client';
import { parseKey } from '../core/crypto/secretBox';
import { startWorkerHealthServer } from './healthServer';
import { stopOnSignals } from '../core/shutdown';
import { temporalConnectionOptions } from '../core/temporal/connection';

/**
 * How long a stopping worker lets its activities in flight finish before it cancels them: under
 * the 10 s after which the supervisor of `npm start` (and `docker stop`) kills it.
 */
const SHUTDOWN_GRACE_MS = 8_000;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger('worker', config.log);
  const development = developmentWarning(config);
  if (development) logger.warn(development);
  // The SDK's Runtime would shut the worker down on SIGINT and SIGTERM by itself, besides
  // stopOnSignals below: one shutdown too many. Signals are handled in one place, core/shutdown.ts.
  Runtime.install({ shutdownSignals: [] });
  const sequelize = createSequelize(config.databaseUrl, { poolMax: 20 });
  await migrateAtStart(sequelize, config);
  const connection = await NativeConnection.connect(temporalConnectionOptions(config.temporal));
  // A bundle built beforehand (WORKFLOW_BUNDLE: tests share one per run; or the build's own) is
  // read as is; one built here is a temporary copy.
  const prebuilt = config.workflowBundlePath ? null : prebuiltWorkflowBundle();
  const given = config.workflowBundlePath ?? prebuilt;
  const bundlePath = given ?? (await bundleWorkflowsInChild());
  const psp = providerFrom(config, logger);
  const { provider, pixApi } = psp;
  const accounts = pspAccountsFrom(config, {
    platform: provider,
    platformRecurrences: pixApi.automatico,
    sequelize,
    logger,
  });
  const worker = await createGatewayWorker({
    workflowBundle: { codePath: bundlePath },
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    shutdownGraceTime: SHUTDOWN_GRACE_MS,
    deps: {
      sequelize,
      provider,
      accounts,
      pspConnections: accounts,
      providerCallbackUrl: `${config.publicBaseUrl}/webhooks/pix-gateway`,
      publicBaseUrl: config.publicBaseUrl,
      secretsKey: parseKey(config.credentialsEncryptionKey),
      allowPrivateDestinations: config.allowPrivateWebhookDestinations,
      privateReceivers: config.webhookPrivateReceivers,
      firstAttemptLeaseSeconds: config.webhookFirstAttemptLeaseSeconds,
      smtpUrl: config.smtpUrl,
      mailFrom: config.mailFrom,
      logger,
      platformInstitution: config.platformInstitutionName,
      automaticoReceiver: config.pixApi.automaticoReceiver,
      defaultPixFee: { bps: config.defaultPixFeeBps, fixedCents: config.defaultPixFeeFixedCents },
    },
  });
  // The worker has read the bundle: the temporary copy is not needed any more.
  if (!given) fs.rmSync(path.dirname(bundlePath), { recursive: true, force: true });
  const clientConnection = await Connection.connect(temporalConnectionOptions(config.temporal));
  const client = new Client({ connection: clientConnection, namespace: config.temporal.namespace });
  await ensureOutboxDispatcher(client, config.temporal.taskQueue);
  await ensureJanitorSchedule(client, config.temporal.taskQueue);
  await ensureReconciliationSchedule(client, config.temporal.taskQueue);
  await ensureMedSyncSchedule(client, config.temporal.taskQueue, config.med);
  await ensurePixSweepSchedule(client, config.temporal.taskQueue);
  await ensureBalanceReadingSchedule(client, config.temporal.taskQueue);
  await clientConnection.close();
  await registerPixWebhook(pixApi, config, logger);
  // WORKER_HEALTH_PORT: what a container healthcheck asks (unref'd: it never keeps the process up).
  if (config.workerHealthPort)
    await startWorkerHealthServer({ port: config.workerHealthPort, host: config.host, state: () => worker.getState() });
  // Once: a second worker.shutdown() while the first drains throws and kills the worker mid-drain.
  // Before "worker started": whoever reads that line may signal at once (the supervisor, a test),
  // and a signal that came before the handlers would kill the process with the default action.
  stopOnSignals(() => worker.shutdown(), { logger });
  // Never the SMTP URL itself: it may carry the login.
  logger.info(
    {
      taskQueue: config.temporal.taskQueue,
      smtp: config.smtpUrl ? 'configured' : 'not configured',
      workflowBundle: config.workflowBundlePath ? 'WORKFLOW_BUNDLE' : prebuilt ? 'the build' : 'bundled at start',
    },
    'worker started',
  );
  await worker.run();
  await psp.close();
  await accounts.close();
  await connection.close();
  await sequelize.close();
  logger.info('worker stopped');
}

/**
 * A PSP that does not answer must not keep the worker from starting: charges are still read back
 * from the PSP at settlement and expiry. The failure is logged (its code, never the URL: it holds
 * the webhook secret) for an operator to run `npm run gateway -- provider webhook register`.
 */
async function registerPixWebhook(
  pixApi: Parameters<typeof ensurePixWebhook>[0] & Parameters<typeof ensureSubscriptionWebhooks>[0],
  config: ReturnType<typeof loadConfig>,
  logger: ReturnType<typeof createLogger>,
): Promise<void> {
  // The receiving key's webhook brings received Pix; the paying key's (Efí reports a send's
  // outcome only there, and refuses sends without one) brings sends. Often one key.
  for (const key of webhookKeys(config)) {
    try {
      const done = await ensurePixWebhook(pixApi, {
        receivingKey: key,
        publicBaseUrl: config.publicBaseUrl,
        webhookSecret: config.pixApi.webhookSecret,
      });
      logger.info({ key, outcome: done }, 'API Pix webhook');
    } catch (err) {
      logger.error(
        { key, code: (err as { code?: unknown }).code ?? null, message: (err as Error).message },
        'API Pix webhook could not be registered; run `npm run gateway -- provider webhook register`',
      );
    }
  }
  // Subscriptions' notices (webhookrec, webhookcobr) at the same URL; a PSP without Pix Automático refuses them.
  try {
    const done = await ensureSubscriptionWebhooks(pixApi, {
      publicBaseUrl: config.publicBaseUrl,
      webhookSecret: config.pixApi.webhookSecret,
    });
    logger.info({ outcome: done }, 'API Pix Pix Automático webhooks');
  } catch (err) {
    logger.error(
      { code: (err as { code?: unknown }).code ?? null, message: (err as Error).message },
      'API Pix Pix Automático webhooks could not be registered; run `npm run gateway -- provider webhook register`',
    );
  }
}

// Stopped: exit at once rather than wind down with the signal handlers gone, when one more
// Ctrl-C would end the process with that signal instead of 0.
main().then(
  () => process.exit(0),
  (err) => {
    // eslint-disable-next-line no-console
    console.error('worker failed:', err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
