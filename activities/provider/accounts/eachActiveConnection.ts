/**
 * Every ACTIVE connection's account visited in turn by a job that reads all of them (the sweep of
 * received Pix, the balance reading, the MED sync): one connection whose PSP fails (revoked
 * certificate, expired secret, PSP down) is logged by its code and skipped, so it stops only its
 * own merchant's share of the job; the next pass tries it again. Any other error is ours and
 * fails the job.
 */
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import { ProviderError } from '../../../core/provider';
import { pspConnectionStore } from '../../../db/connections';

export type ActiveConnection = Awaited<ReturnType<typeof pspConnectionStore.activeConnections>>[number];

export async function eachActiveConnection(
  deps: { sequelize: Sequelize; logger: Logger },
  /** What failed, in the log's words: "a connected account's … could not be …; … next pass". */
  failure: string,
  visit: (connection: ActiveConnection) => Promise<void>,
): Promise<{ visited: number; failed: ActiveConnection[] }> {
  const connections = await pspConnectionStore.activeConnections(deps.sequelize);
  const failed: ActiveConnection[] = [];
  for (const connection of connections) {
    try {
      await visit(connection);
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      failed.push(connection);
      // The code only: the PSP's own text (err.detail) may name hosts and paths.
      deps.logger.warn({ connectionId: connection.id, merchantId: connection.merchantId, code: err.code }, failure);
    }
  }
  return { visited: connections.length, failed };
}
