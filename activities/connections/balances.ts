/**
 * The reading of each connected account's balance (issue 37, Deliver 5): a connected merchant's
 * available balance is its PSP account's saldo, and the API, which never calls a PSP, shows the
 * last reading the worker stored. Run by the Schedule `psp-balance-reading-<task queue>`
 * (workflows/connections/balanceReading.ts) over every ACTIVE connection, each read with its own
 * connection (Efí GET /v2/gn/saldo) beside the merchant's ledger mirror at the same instant
 * (./saldo.ts), the pair kept as the connection's last reading (db/connections/balanceReadingStore.ts).
 *
 * One connection that cannot be read (revoked meanwhile, its PSP down, a saldo it does not tell)
 * is logged and skipped, its last reading kept as it is (its read_at says how old): the others are
 * read, and the next pass tries it again.
 */
import type { Logger } from 'pino';
import type { Sequelize } from 'sequelize';
import type { PspAccounts } from '../../core/provider';
import { balanceReadingStore } from '../../db/connections';
import { balanceStore } from '../../db/ledger';
import type { BalanceReadingResult } from '../../workflows/connections/types';
import { eachActiveConnection } from '../provider/accounts/eachActiveConnection';
import { saldoBesideMirror } from './saldo';

export interface BalanceReadingDeps {
  sequelize: Sequelize;
  /** The worker's directory of PSP accounts; absent: no connected account is read. */
  accounts?: PspAccounts;
  logger: Logger;
}

export async function readConnectionBalances(deps: BalanceReadingDeps): Promise<BalanceReadingResult> {
  const result: BalanceReadingResult = { connections: 0, read: 0, failedConnections: [] };
  const accounts = deps.accounts;
  if (!accounts) return result;
  const logger = deps.logger.child({ module: 'psp-balance-reading' });
  const { visited, failed } = await eachActiveConnection(
    { sequelize: deps.sequelize, logger },
    "a connected account's balance could not be read; its last reading stays, read again next pass",
    async (connection) => {
      const { provider } = await accounts.forConnection(connection.id);
      const { saldoCents, ledger } = await saldoBesideMirror(provider, async () => {
        const b = await balanceStore.merchantBalances(deps.sequelize, connection.merchantId);
        return { mirrorCents: b.availableCents + b.reservedCents + b.blockedCents, reservedCents: b.reservedCents };
      });
      await balanceReadingStore.recordReading(deps.sequelize, {
        connectionId: connection.id,
        saldoCents,
        mirrorCents: ledger.mirrorCents,
        reservedCents: ledger.reservedCents,
        readAt: new Date(),
      });
      result.read++;
    },
  );
  result.connections = visited;
  result.failedConnections = failed.map((c) => c.id);
  return result;
}
