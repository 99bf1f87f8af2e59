/**
 * `payout reconcile <batchId>` / `withdrawal reconcile <withdrawalId>`: repairs a reservation
 * whose workflow was terminated, through the same module the janitor uses (activities/transfers/repair.ts).
 */
import { Client, Connection } from '@temporalio/client';
import pino from 'pino';
import type { Sequelize } from 'sequelize';
import { temporalConnectionForCli, type CliEnvironment } from '../config';
import { createLogger } from '../core/logger';
import { createReconciler, type ReconcileSummary } from '../activities/transfers/repair';
import { HttpPixProvider } from '../activities/provider/httpPixProvider';
import { temporalConnectionOptions } from '../core/temporal/connection';

export async function reconcileCommand(
  sequelize: Sequelize,
  cli: CliEnvironment,
  kind: ReconcileSummary['kind'],
  id: string,
): Promise<void> {
  const optional = (name: string, fallback: string) => cli.optional(name) ?? fallback;
  const provider = new HttpPixProvider({
    baseUrl: optional('PROVIDER_BASE_URL', 'http://127.0.0.1:4010'),
    apiKey: cli.required('PROVIDER_API_KEY'),
    timeoutMs: Number(optional('PROVIDER_TIMEOUT_MS', '5000')),
  });
  // The repair's alerts go to stderr (stdout is the command's answer), or the test run's log directory.
  const logger = createLogger(
    'gateway-cli',
    cli.log.testLogDir ? cli.log : { ...cli.log, destination: pino.destination(2) },
  );
  // TEMPORAL_ADDRESS and TEMPORAL_TLS_* (the client certificate of a frontend that requires mutual TLS).
  const connection = await Connection.connect(temporalConnectionOptions(temporalConnectionForCli(cli.all)));
  try {
    const client = new Client({ connection, namespace: optional('TEMPORAL_NAMESPACE', 'default') });
    const summary = await createReconciler({ sequelize, provider, logger }).reconcileStopped(client, { kind, id });
    process.stdout.write(`${describe(summary)}\n`);
  } finally {
    await connection.close();
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
