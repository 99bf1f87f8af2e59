/**
 * `payout reconcile <batchId>` / `withdrawal reconcile <withdrawalId>`: repairs a reservation
 * whose workflow was terminated, through the same module the janitor uses (activities/transfers/repair/),
 * asking the same PSP routes the worker asks (providerFrom: Efí's record by idEnvio with
 * PIX_TRANSFERS_API=efi), never another API: a send the repair could not see would read as "no
 * record" and be released after the grace period although it was paid.
 */
import { Client, Connection } from '@temporalio/client';
import pino from 'pino';
import type { Sequelize } from 'sequelize';
import { loadConfig, temporalConnectionForCli, type CliEnvironment } from '../config';
import { createLogger } from '../core/logger';
import { createReconciler } from '../activities/transfers/repair/reconciler';
import type { ReconcileSummary } from '../activities/transfers/repair/summary';
import { providerFrom } from '../activities/provider/providerFrom';
import { temporalConnectionOptions } from '../core/temporal/connection';

export async function reconcileCommand(
  sequelize: Sequelize,
  cli: CliEnvironment,
  kind: ReconcileSummary['kind'],
  id: string,
): Promise<void> {
  const optional = (name: string, fallback: string) => cli.optional(name) ?? fallback;
  // The repair's alerts go to stderr (stdout is the command's answer), or the test run's log directory.
  const logger = createLogger(
    'gateway-cli',
    cli.log.testLogDir ? cli.log : { ...cli.log, destination: pino.destination(2) },
  );
  // TEMPORAL_ADDRESS and TEMPORAL_TLS_* (the client certificate of a frontend that requires mutual TLS).
  // The worker's configuration (config.ts), read as the worker reads it, and the worker's provider.
  const psp = providerFrom(loadConfig(cli.all), logger);
  const provider = psp.provider;
  const connection = await Connection.connect(temporalConnectionOptions(temporalConnectionForCli(cli.all)));
  try {
    const client = new Client({ connection, namespace: optional('TEMPORAL_NAMESPACE', 'default') });
    const summary = await createReconciler({ sequelize, provider, logger }).reconcileStopped(client, { kind, id });
    process.stdout.write(`${describe(summary)}\n`);
  } finally {
    await connection.close();
    await psp.close();
  }
}

function describe(s: ReconcileSummary): string {
  const what = s.kind === 'payout-batch' ? `payout batch ${s.id}` : `withdrawal ${s.id}`;
  const lines = [
    `${what}: ${s.status}`,
    `  settled paid by the provider's record: ${s.paid}`,
    `  released: ${s.released}`,
  ];
  if (s.releasedAmountCents > 0) lines.push(`  released amount: BRL ${(s.releasedAmountCents / 100).toFixed(2)}`);
  if (s.waiting > 0)
    lines.push(
      `  waiting: ${s.waiting} sent less than the grace period ago with no provider record yet; run again in a few minutes`,
    );
  return lines.join('\n');
}
