/**
 * The second half of a rotation (db/connections/rotation.ts staged the new material as pending),
 * the one way the CLI and the worker both do it: the pending material is tested as "test the
 * connection" tests the active one (a token, the webhook, the balance), promoted only if the test
 * passes, and dropped if it fails, so the active material, which served every call meanwhile, stays.
 */
import type { Sequelize } from 'sequelize';
import { pspConnectionStore, type ConnectionTestRecord, type PspConnectionRow } from '../../db/connections';
import { checkConnection } from '../provider/connectionCheck';
import type { PixApiConnection } from '../provider/pixApi/connection';

export type RotationOutcome =
  | { outcome: 'ROTATED'; test: ConnectionTestRecord }
  /** The new material failed its test: dropped, the active one stays. */
  | { outcome: 'TEST_FAILED'; test: ConnectionTestRecord }
  /** Revoked or rotated again meanwhile: this material was not promoted. */
  | { outcome: 'SUPERSEDED' };

/** Opens a connection to the PSP on the pending material, closed after `use`. */
export type WithPending = <T>(use: (connection: PixApiConnection) => Promise<T>) => Promise<T>;

export async function promoteIfItPasses(
  sequelize: Sequelize,
  row: PspConnectionRow,
  pendingEnvelope: string,
  withPending: WithPending,
): Promise<RotationOutcome> {
  let test: ConnectionTestRecord;
  try {
    test = await withPending((connection) =>
      checkConnection(connection, { apiBaseUrl: row.api_base_url, pixKey: row.pix_key }),
    );
  } catch (err) {
    // Untested material is never left pending: the next rotation starts clean.
    await pspConnectionStore.clearPending(sequelize, row.id, pendingEnvelope);
    throw err;
  }
  if (!test.ok) {
    await pspConnectionStore.clearPending(sequelize, row.id, pendingEnvelope);
    return { outcome: 'TEST_FAILED', test };
  }
  if (!(await pspConnectionStore.promotePending(sequelize, row.id, pendingEnvelope, test)))
    return { outcome: 'SUPERSEDED' };
  return { outcome: 'ROTATED', test };
}
