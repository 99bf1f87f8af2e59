/**
 * The charge activities only Pix runs started before patch 'charge-issue-one-step' call
 * (workflows/charges/chargeLifecycle.ts issues with them when `oneStep` is false):
 * issuePixAtProvider and recordIssuedCharge. Newer runs issue and record in one step
 * (issueAndRecordPix, issue.ts), which runs the same two halves.
 *
 * Delete this file with that branch of chargeLifecycle, once no chargeLifecycle run started
 * before the patch can be open (docs/architecture.md, "Workflow history"). When: the patch's
 * commit date plus the longest life of a Pix charge run. The patch was committed 2026-11-26
 * (5b99647: `git log -S "'charge-issue-one-step'"`); a Pix charge expires at most 30 days after
 * its creation (api/charges/schema.ts), and then closes in minutes: not before 2026-12-26,
 * counted from the deployment that carried 5b99647 if that came later. A close or a settlement
 * retries while the provider is down, so first check that
 * `temporal workflow list --query "WorkflowType='chargeLifecycle' AND ExecutionStatus='Running' AND StartTime < '<that deployment>'"`
 * finds none.
 */
import { merchantStore } from '../../db/identity';
import type { ChargeLifecycleInput, IssuedCharge } from '../../workflows/charges/types';
import type { ChargeDeps } from './deps';
import { issueAtProvider, recordIssued, type IssuedProviderCharge } from './issue';

/** The provider's charge without its QR image (issueAtProvider says why). */
export async function issuePixAtProvider(
  deps: Pick<ChargeDeps, 'sequelize' | 'accounts' | 'providerCallbackUrl'>,
  input: ChargeLifecycleInput,
): Promise<IssuedProviderCharge> {
  // The payer's bank app shows field 59 of the BR Code: the merchant's name, not the gateway's.
  return issueAtProvider(deps, input, await merchantStore.merchantName(input.merchantId));
}

export async function recordIssuedCharge(
  deps: ChargeDeps,
  args: { input: ChargeLifecycleInput; providerCharge: IssuedProviderCharge },
): Promise<IssuedCharge> {
  return recordIssued(deps, args.input, args.providerCharge);
}
