/**
 * A merchant's balances explained line by line (issue 38): the ledger lines that moved its
 * available, reserved, blocked and owed accounts, newest first, each with the movement's kind and
 * reference and the account's balance after it, under the balances they sum to
 * (db/ledger/statementStore.ts). Any member reads (as every dashboard figure); anyone else gets
 * 404 MERCHANT_NOT_FOUND. The ledger's figures: for a connected merchant the ledger mirrors its
 * own PSP account (GET /dashboard/stats shows that account's saldo).
 */
import type { Sequelize } from 'sequelize';
import { statementStore } from '../../db/ledger';
import { ANY_ROLE, requireRole } from '../identity/auth/roles';
import type { BalanceLinesQuery } from './balanceLinesSchema';

export async function balanceLines(sequelize: Sequelize, userId: string, q: BalanceLinesQuery) {
  await requireRole(userId, q.merchantId, ANY_ROLE);
  const { balances, lines, hasMore } = await statementStore.merchantStatement(sequelize, {
    merchantId: q.merchantId,
    account: q.account,
    limit: q.limit,
    beforeId: q.cursor,
  });
  return {
    merchantId: q.merchantId,
    balances: {
      availableCents: balances.available,
      reservedCents: balances.reserved,
      blockedCents: balances.blocked,
      owedCents: balances.owed,
    },
    data: lines.map((l) => ({
      id: l.postingId,
      transactionId: l.transactionId,
      createdAt: l.createdAt.toISOString(),
      account: l.account,
      amountCents: l.amountCents,
      balanceAfterCents: l.balanceAfterCents,
      kind: l.kind,
      reference: { type: l.referenceType, id: l.referenceId },
    })),
    pagination: {
      limit: q.limit,
      hasMore,
      nextCursor: hasMore ? lines[lines.length - 1].postingId : null,
    },
  };
}
