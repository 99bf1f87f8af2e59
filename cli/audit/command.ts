/**
 * `npm run gateway -- audit [--json] [--since <ISO time>] [--sandbox-url <url>] [--stale-minutes <n>]`:
 * the audit against the configured database, PSP and Temporal (the worker's configuration, read
 * as `payout reconcile` reads it). Exit 0 clean, 1 on any discrepancy (or a check that could not
 * run), 2 on a usage error.
 */
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import pino from 'pino';
import { loadConfig, temporalConnectionForCli, type CliEnvironment } from '../../config';
import { createLogger } from '../../core/logger';
import { temporalConnectionOptions } from '../../core/temporal/connection';
import { providerFrom } from '../../activities/provider/providerFrom';
import { createSequelize } from '../../db/sequelize';
import { formatAudit, runAudit, type AuditOptions } from './index';

export const auditUsage = `usage: npm run gateway -- audit [--json] [--since <ISO time>] [--sandbox-url <url>] [--stale-minutes <n>]

Proves, read-only, that nothing was lost or paid twice (docs/operations.md#the-audit): charges
credited once, charge.paid webhooks delivered, the PSP's sends against our rows, no reservation
left open, no workflow stuck or failed, the ledger balanced. Exit 0 clean, 1 discrepancies, 2 usage.`;

class UsageError extends Error {}

function optionsOf(argv: string[], cli: CliEnvironment): { json: boolean; opts: Omit<AuditOptions, 'taskQueue'> } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        json: { type: 'boolean', default: false },
        since: { type: 'string' },
        'sandbox-url': { type: 'string' },
        'stale-minutes': { type: 'string' },
      },
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values } = parsed;
  const since = values.since === undefined ? undefined : new Date(values.since);
  if (since && Number.isNaN(since.getTime())) throw new UsageError(`--since ${values.since} is not an ISO time`);
  const stale = values['stale-minutes'];
  if (stale !== undefined && !/^\d+$/.test(stale)) throw new UsageError('--stale-minutes must be a whole number');
  const controlToken = cli.optional('SANDBOX_CONTROL_TOKEN');
  return {
    json: values.json,
    opts: {
      since,
      staleAfterMs: stale === undefined ? undefined : Number(stale) * 60_000,
      sandbox: values['sandbox-url'] ? { url: values['sandbox-url'], controlToken } : undefined,
    },
  };
}

export async function auditCommand(argv: string[], cli: CliEnvironment): Promise<void> {
  let parsed: ReturnType<typeof optionsOf>;
  try {
    parsed = optionsOf(argv, cli);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    process.stderr.write(`gateway audit: ${err.message}\n${auditUsage}\n`);
    process.exitCode = 2;
    return;
  }
  // Logs to stderr (stdout is the report), or the test run's log directory.
  const logger = createLogger(
    'gateway-cli',
    cli.log.testLogDir ? cli.log : { ...cli.log, destination: pino.destination(2) },
  );
  const config = loadConfig(cli.all);
  const sequelize = createSequelize(cli.required('DATABASE_URL'), { poolMax: 2 });
  const psp = providerFrom(config, logger);
  try {
    const connection = await Connection.connect(temporalConnectionOptions(temporalConnectionForCli(cli.all)));
    try {
      const temporal = new Client({ connection, namespace: config.temporal.namespace });
      const report = await runAudit(
        { sequelize, provider: psp.provider, temporal },
        { ...parsed.opts, taskQueue: config.temporal.taskQueue },
      );
      process.stdout.write(parsed.json ? `${JSON.stringify(report)}\n` : formatAudit(report));
      process.exitCode = report.clean ? 0 : 1;
    } finally {
      await connection.close();
    }
  } finally {
    await psp.close();
    await sequelize.close();
  }
}
