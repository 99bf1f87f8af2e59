/**
 * Ledger account codes. One place names them, so postings and balance reads agree.
 *
 * A MED debt (issue 38) is `merchant:<id>:owed`, the one merchant account that goes negative: its
 * balance is minus what the merchant owes for MED claims its money did not cover (a receivable of
 * the platform's, so of the opposite sign of the accounts that hold a merchant's money). While the
 * case is open its contra is `external:med_claims` (the part of open claims no merchant money
 * holds); once the devolução is paid the platform has advanced it (med_claims → provider clearing)
 * and the debt is the merchant's to the platform. The available balance never goes negative: what
 * is short is owed, never taken (postings.ts "MED" states each movement).
 */
export const accounts = {
  merchantAvailable: (merchantId: string) => `merchant:${merchantId}:available`,
  merchantReserved: (merchantId: string) => `merchant:${merchantId}:reserved`,
  /** Money under a Pix infraction (MED): neither withdrawable nor refundable until decided. */
  merchantBlocked: (merchantId: string) => `merchant:${merchantId}:blocked`,
  /** Minus what the merchant owes for MED claims its balance did not cover (≤ 0; 0 when it owes nothing). */
  merchantOwed: (merchantId: string) => `merchant:${merchantId}:owed`,
  platformFees: 'platform:fees',
  /** Money received from Pix payers through the provider (contra account, goes negative). */
  pixPayins: 'external:pix_payins',
  /** Money received from boleto payers (paid by barcode) through the provider (contra account). */
  boletoPayins: 'external:boleto_payins',
  /** Money sent out through the provider (contra account). */
  providerClearing: 'external:provider_clearing',
  /** Open MED claims no merchant money holds yet: the contra of the merchants' owed accounts while cases are open. */
  medClaims: 'external:med_claims',
} as const;

export interface AccountSpec {
  code: string;
  kind:
    'MERCHANT_AVAILABLE' | 'MERCHANT_RESERVED' | 'MERCHANT_BLOCKED' | 'MERCHANT_OWED' | 'PLATFORM_FEES' | 'EXTERNAL';
  merchantId: string | null;
  allowNegative: boolean;
}

const merchantKinds = {
  available: 'MERCHANT_AVAILABLE',
  reserved: 'MERCHANT_RESERVED',
  blocked: 'MERCHANT_BLOCKED',
  owed: 'MERCHANT_OWED',
} as const;

export function describeAccount(code: string): AccountSpec {
  const merchant = /^merchant:([0-9a-f-]{36}):(available|reserved|blocked|owed)$/.exec(code);
  if (merchant) {
    const part = merchant[2] as keyof typeof merchantKinds;
    // A debt is a negative balance; every account holding a merchant's money is never below zero.
    return { code, kind: merchantKinds[part], merchantId: merchant[1], allowNegative: part === 'owed' };
  }
  if (code === accounts.platformFees) return { code, kind: 'PLATFORM_FEES', merchantId: null, allowNegative: false };
  if (code.startsWith('external:')) return { code, kind: 'EXTERNAL', merchantId: null, allowNegative: true };
  throw new Error(`unknown ledger account code ${code}`);
}
