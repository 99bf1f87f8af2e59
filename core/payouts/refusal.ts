/**
 * Why a merchant may not pay out right now, or null when it may. One rule for the API's quick
 * answer, the batch reserve (under a lock on the merchant row) and every item before it is sent.
 * Pure.
 */
import { moneyOutRefusal, type MoneyOutRefusal } from '../identity/moneyOut';

export type PayoutRefusal = MoneyOutRefusal | 'PAYOUTS_NOT_ENABLED';

export function payoutRefusal(merchant: {
  active: boolean;
  payoutsEnabled: boolean;
  withdrawalsFrozen: boolean;
}): PayoutRefusal | null {
  if (!merchant.active) return 'MERCHANT_INACTIVE';
  if (!merchant.payoutsEnabled) return 'PAYOUTS_NOT_ENABLED';
  return moneyOutRefusal(merchant);
}
