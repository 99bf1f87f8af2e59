import type { ProviderTransfer } from '../../core/provider';
import type { TransferOutcome } from '../../workflows/withdrawals/types';
import type { WithdrawalDeps } from './deps';
import { findWithdrawal } from './row';

/** The provider's record of a withdrawal's transfer, or null when it has none. Retried until it answers. */
export async function transferRecordOf(deps: WithdrawalDeps, withdrawalId: string): Promise<TransferOutcome | null> {
  const withdrawal = await findWithdrawal(withdrawalId);
  const answer = await deps.transfers.lookup({ reference: withdrawal.id, amountCents: withdrawal.amountCents });
  return answer && answer.kind !== 'NO_RECORD' ? outcomeOf(answer.transfer) : null;
}

/** Only what we store (the transfer path already checked it is ours: reference and amount). */
export function outcomeOf(transfer: ProviderTransfer): TransferOutcome {
  return {
    status: transfer.status,
    providerTransferId: transfer.id,
    endToEndId: transfer.status === 'COMPLETED' ? transfer.endToEndId : null,
    failureCode: transfer.status === 'FAILED' ? (transfer.failureCode ?? null) : null,
  };
}
