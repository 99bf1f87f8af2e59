/**
 * Why a merchant may not pay out right now, or null when it may. One rule for the API's quick
 * answer, the batch reserve (under a lock on the merchant row) and every item before it is sent.
 * Pure.
 */
export type PayoutRefusal = 'MERCHANT_INACTIVE' | 'PAYOUTS_NOT_ENABLED' | 'WITHDRAWAL_FROZEN';

export function payoutRefusal(merchant: { active: boolean; payoutsEnabled: boolean; withdrawalsFrozen: boolean }): PayoutRefusal | null {
  if (!merchant.active) return 'MERCHANT_INACTIVE';
  if (!merchant.payoutsEnabled) return 'PAYOUTS_NOT_ENABLED';
  if (merchant.withdrawalsFrozen) return 'WITHDRAWAL_FROZEN';
  return null;
}
