import type { Transaction } from 'sequelize';
import { presentWithdrawalRows, type Withdrawal } from '../../db/withdrawals';
import { recordEvent } from '../events/outbox';

/** withdrawal.completed or withdrawal.failed, with the withdrawal as merchants read it, in the caller's transaction. */
export async function recordWithdrawalEvent(
  type: 'withdrawal.completed' | 'withdrawal.failed',
  withdrawal: Withdrawal,
  transaction: Transaction,
  platformInstitution: string,
): Promise<void> {
  const [view] = await presentWithdrawalRows(withdrawal.merchantId, [withdrawal], platformInstitution);
  await recordEvent(
    { type, merchantId: withdrawal.merchantId, aggregateType: 'withdrawal', aggregateId: withdrawal.id, payload: view },
    transaction,
  );
}
