/**
 * A merchant's PSP connection, from the worker: "test the connection" and its webhook
 * registration, asked for by the application API through workflows/connections/ (the API never
 * calls a PSP). Each opens a fresh connection on the row's own material (ConnectedPspAccounts
 * withConnection), records what the CLI records, and returns our own words only: nothing secret
 * crosses into the workflow's history (the webhook URL, which holds the path secret, included).
 * Besides, the Schedule's reading of every connected account's balance (./balances.ts).
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import { connectionWebhookUrl } from '../../core/pix/callbackPath';
import { PSP_CONNECTION_UNAVAILABLE, ProviderError } from '../../core/provider';
import { pspConnectionStore, type PspConnectionRow } from '../../db/connections';
import {
  ConnectionFailureTypes,
  type PspConnectionTestInput,
  type PspConnectionTestResult,
  type PspConnectionWebhookInput,
  type PspConnectionWebhookResult,
} from '../../workflows/connections/types';
import { checkConnection, webhookRegistrationProblem } from '../provider/connectionCheck';
import type { PixApiConnection } from '../provider/pixApi/connection';
import { PixApiClient } from '../provider/pixApi/pixApiClient';
import { ensureWebhookAt } from '../provider/pixWebhook';
import { readConnectionBalances, type BalanceReadingDeps } from './balances';

/** Opens a merchant's connection on its row's own material (activities/provider/accounts/pspAccounts.ts). */
export interface PspConnectionOpener {
  withConnection<T>(row: PspConnectionRow, use: (connection: PixApiConnection) => Promise<T>): Promise<T>;
  webhookPathSecret(row: PspConnectionRow): string;
}

export interface ConnectionActivityDeps extends BalanceReadingDeps {
  sequelize: Sequelize;
  /** The worker's directory of PSP accounts; absent: this worker opens no merchant connection. */
  pspConnections?: PspConnectionOpener;
}

export function createConnectionActivities(deps: ConnectionActivityDeps) {
  return {
    testPspConnection: (input: PspConnectionTestInput) => testPspConnection(deps, input),
    registerPspConnectionWebhook: (input: PspConnectionWebhookInput) => registerPspConnectionWebhook(deps, input),
    readConnectionBalances: () => readConnectionBalances(deps),
  };
}

export type ConnectionActivities = ReturnType<typeof createConnectionActivities>;

/** The test, recorded as the connection's last_test (as `connection test` records it). */
export async function testPspConnection(
  deps: ConnectionActivityDeps,
  input: PspConnectionTestInput,
): Promise<PspConnectionTestResult> {
  const { row, opener } = await activeConnection(deps, input.connectionId);
  const result = await opening(() =>
    opener.withConnection(row, (connection) =>
      checkConnection(connection, { apiBaseUrl: row.api_base_url, pixKey: row.pix_key }),
    ),
  );
  await pspConnectionStore.recordTest(deps.sequelize, row.id, result);
  return result;
}

/**
 * PUT /webhook/{chave} at the merchant's PSP for the connection's Pix key:
 * `<publicBaseUrl>/webhooks/pix-api/connections/<id>/<path secret>`, left alone when already there.
 */
export async function registerPspConnectionWebhook(
  deps: ConnectionActivityDeps,
  input: PspConnectionWebhookInput,
): Promise<PspConnectionWebhookResult> {
  const { row, opener } = await activeConnection(deps, input.connectionId);
  const url = await opening(() => connectionWebhookUrl(input.publicBaseUrl, row.id, opener.webhookPathSecret(row)));
  const outcome = await opening(() =>
    opener.withConnection(row, async (connection) => {
      try {
        return await ensureWebhookAt(new PixApiClient({ connection, baseUrl: row.api_base_url }), row.pix_key, url);
      } catch (err) {
        throw ApplicationFailure.nonRetryable(
          webhookRegistrationProblem(err, row.pix_key),
          ConnectionFailureTypes.webhookRefused,
        );
      }
    }),
  );
  return { outcome };
}

async function activeConnection(deps: ConnectionActivityDeps, connectionId: string) {
  const row = await pspConnectionStore.findConnectionById(deps.sequelize, connectionId);
  if (!row || row.status !== 'ACTIVE')
    throw ApplicationFailure.nonRetryable(
      `PSP connection ${connectionId} is not active (revoked meanwhile)`,
      ConnectionFailureTypes.notActive,
    );
  if (!deps.pspConnections)
    throw ApplicationFailure.nonRetryable(
      'this worker opens no merchant connection (no directory of PSP accounts)',
      ConnectionFailureTypes.unavailable,
    );
  return { row, opener: deps.pspConnections };
}

/** Material that does not open (no master key, another one) is the operator's to fix: said as such, not retried. */
async function opening<T>(open: () => T | Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (err) {
    if (err instanceof ProviderError && err.code === PSP_CONNECTION_UNAVAILABLE)
      throw ApplicationFailure.nonRetryable(err.message, ConnectionFailureTypes.unavailable);
    throw err;
  }
}
