/**
 * The withdrawal activities only runs started before patch `outbound-transfer-v1` call: those
 * runs replay workflows/withdrawals/withdrawal.ts's sendAsBefore, which sends, looks up and
 * settles in separate activities (it settles with completeWithdrawal and failWithdrawal,
 * settle.ts, which the workflow's other paths and the janitor's repair use too).
 *
 * Delete this file with sendAsBefore, when `patched(OUTBOUND_TRANSFER_V1)` becomes
 * `deprecatePatch` (docs/architecture.md), together with the withdrawalLifecycle histories only
 * the old branch replays (those without the `.outbound-transfer-v1` suffix), from 2026-11-27.
 * How: the patch is on main since 2026-11-25 22:29 UTC (46f9d3e, merged by 50a24ca). A
 * withdrawal run (a scheduled settlement's child too) lives for its reserve (3 quick tries,
 * ~30 s), its send (retried every minute at most while the PSP is unreachable, with no cap), the
 * TRANSFER_GRACE of 2 minutes and its settle: minutes, stretched only by a PSP outage. A day
 * allowed for an outage gives 2026-11-26 22:30 UTC, the next day 2026-11-27. Check first that no
 * pre-patch run is open: `temporal workflow list --query "WorkflowType='withdrawalLifecycle' AND
 * ExecutionStatus='Running' AND StartTime < '2026-11-25T22:30:00Z'"` lists none.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { withdrawalStore } from '../../db/withdrawals';
import { WithdrawalFailureTypes, type TransferOutcome } from '../../workflows/withdrawals/types';
import type { WithdrawalDeps } from './deps';
import { transferOf } from './send';
import { outcomeOf, transferRecordOf } from './transferRecord';

/**
 * Sends the Pix transfer (the withdrawal id is the idempotency key). Null when the provider
 * refused the call and has no record of it. Never sends for a withdrawal not PROCESSING.
 */
export async function sendWithdrawalTransfer(
  deps: WithdrawalDeps,
  args: { withdrawalId: string },
): Promise<TransferOutcome | null> {
  const withdrawal = await withdrawalStore.findWithdrawal(args.withdrawalId);
  if (!withdrawal || withdrawal.status !== 'PROCESSING' || !withdrawal.beneficiarySnapshot) {
    throw ApplicationFailure.nonRetryable(
      `withdrawal ${args.withdrawalId} is not PROCESSING`,
      WithdrawalFailureTypes.stateConflict,
    );
  }
  const answer = await deps.transfers.send(transferOf(withdrawal), { retry: Context.current().info.attempt > 1 });
  return answer.kind === 'NO_RECORD' ? null : outcomeOf(answer.transfer);
}

/** The provider's record of our transfer, or null when it has none. Retried until it answers. */
export function findWithdrawalTransfer(
  deps: WithdrawalDeps,
  args: { withdrawalId: string },
): Promise<TransferOutcome | null> {
  return transferRecordOf(deps, args.withdrawalId);
}
