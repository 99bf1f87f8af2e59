/**
 * Whether money may leave a merchant's balance at its request right now: not when it is
 * deactivated, not while an operator has frozen it (`gateway merchant freeze`). One rule for
 * withdrawals, payouts and refunds, for the API's quick answer and again under the merchant
 * row's lock when money is reserved. Pure.
 */
export type MoneyOutRefusal = 'MERCHANT_INACTIVE' | 'WITHDRAWAL_FROZEN';

export function moneyOutRefusal(
  merchant: { active: boolean; withdrawalsFrozen: boolean } | null,
): MoneyOutRefusal | null {
  if (!merchant?.active) return 'MERCHANT_INACTIVE';
  if (merchant.withdrawalsFrozen) return 'WITHDRAWAL_FROZEN';
  return null;
}
