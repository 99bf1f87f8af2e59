/**
 * A merchant's PSP connection, from the worker: "test the connection", its webhook registration,
 * the test and promotion of a rotation staged by the API (rotation.ts) and the balance reading
 * (balances.ts), asked for by the application API or a Schedule through workflows/connections/
 * (the API never calls a PSP). Each opens a fresh connection on the row's own material (ConnectedPspAccounts
 * withConnection), records what the CLI records, and returns our own words only: nothing secret
 * crosses into the workflow's history (the webhook URL, which holds the path secret, included).
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { Sequelize } from 'sequelize';
import { connectionWebhookUrl } from '../../core/pix/callbackPath';
import { PSP_CONNECTION_UNAVAILABLE, ProviderError } from '../../core/provider';
import { pendingRef, pspConnectionStore, type PspConnectionRow } from '../../db/connections';
import {
  ConnectionFailureTypes,
  type PspConnectionRotateInput,
  type PspConnectionRotateResult,
  type PspConnectionTestInput,
  type PspConnectionTestResult,
  type PspConnectionWebhookInput,
  type PspConnectionWebhookResult,
} from '../../workflows/connections/types';
import { checkConnection, webhookRegistrationProblem } from '../provider/connectionCheck';
import type { PixApiConnection } from '../provider/pixApi/connection';
import { PixApiClient } from '../provider/pixApi/pixApiClient';
import { ensureConnectionWebhooksAt } from '../provider/pixWebhook';
import { readConnectionBalances, type BalanceReadingDeps } from './balances';
import { promoteIfItPasses } from './rotation';

/** Opens a merchant's connection on its row's own material (activities/provider/accounts/pspAccounts.ts). */
export interface PspConnectionOpener {
  /** On the active material, or on the pending one a rotation staged. */
  withConnection<T>(
    row: PspConnectionRow,
    use: (connection: PixApiConnection) => Promise<T>,
    material?: 'active' | 'pending',
  ): Promise<T>;
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
    rotatePspConnection: (input: PspConnectionRotateInput) => rotatePspConnection(deps, input),
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
 * `<publicBaseUrl>/webhooks/pix-api/connections/<id>/<path secret>`, left alone when already there;
 * PUT /webhookrec and /webhookcobr at the same URL (its subscriptions' notices, `/rec`, `/cobr`).
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
        return await ensureConnectionWebhooksAt(
          new PixApiClient({ connection, baseUrl: row.api_base_url }),
          row.pix_key,
          url,
        );
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

/**
 * The rotation the API staged (its pending material, named by `input.pending`) tested with the
 * merchant's PSP and promoted if it passes (promoteIfItPasses, as the CLI does it). A failed test is
 * the result `rotated: false`, the active material untouched; pending material that is no longer
 * the one named (another rotation, a revocation) fails the run as superseded.
 */
export async function rotatePspConnection(
  deps: ConnectionActivityDeps,
  input: PspConnectionRotateInput,
): Promise<PspConnectionRotateResult> {
  const { row, opener } = await activeConnection(deps, input.connectionId);
  const pending = row.pending_secret_envelope;
  if (pending === null || pendingRef(pending) !== input.pending)
    throw ApplicationFailure.nonRetryable(
      `the new material of PSP connection ${row.id} was replaced by another rotation: not promoted`,
      ConnectionFailureTypes.superseded,
    );
  const result = await opening(() =>
    promoteIfItPasses(deps.sequelize, row, pending, (use) => opener.withConnection(row, use, 'pending')),
  );
  if (result.outcome === 'SUPERSEDED')
    throw ApplicationFailure.nonRetryable(
      `PSP connection ${row.id} was revoked or rotated again while its new material was tested: not promoted`,
      ConnectionFailureTypes.superseded,
    );
  return { rotated: result.outcome === 'ROTATED', test: result.test };
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
