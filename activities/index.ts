/** Every activity the gateway worker registers, built from explicit dependencies. */
import { createChargeActivities, type ChargeActivityDeps } from './charges';
import { createWithdrawalActivities } from './withdrawals';

export type ActivityDeps = ChargeActivityDeps;

export function createActivities(deps: ActivityDeps) {
  return { ...createChargeActivities(deps), ...createWithdrawalActivities(deps) };
}

export type Activities = ReturnType<typeof createActivities>;
