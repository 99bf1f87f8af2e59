import { describeTransferFailure, transferFailureOfIsoReason } from '../../../core/transfers/failures';
import { payoutStore } from '../../../db/payouts';
import { withdrawalStore } from '../../../db/withdrawals';
import type { SentPixDeps } from './deps';
import type { SendOwner } from '../../../db/transfers/sendOwner';

/** What a NAO_REALIZADO without a reason is released as (transferFailureOfIsoReason of nothing). */
const GENERIC_REFUSAL = transferFailureOfIsoReason(null);

/** The notice's ISO 20022 reason replaces the generic label of a released send; false when it says no more. */
export async function refineReason(deps: SentPixDeps, owner: SendOwner, isoReason: string): Promise<boolean> {
  const code = transferFailureOfIsoReason(isoReason);
  if (code === GENERIC_REFUSAL) return false;
  const failure = { from: GENERIC_REFUSAL, ...describeTransferFailure(code) };
  return owner.type === 'withdrawal'
    ? withdrawalStore.refineFailure(deps.sequelize, owner.id, failure)
    : payoutStore.refineItemFailure(deps.sequelize, owner.id, failure);
}
