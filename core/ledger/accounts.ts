/** Ledger account codes. One place names them, so postings and balance reads agree. */
export const accounts = {
  merchantAvailable: (merchantId: string) => `merchant:${merchantId}:available`,
  merchantReserved: (merchantId: string) => `merchant:${merchantId}:reserved`,
  /** Money under a Pix infraction (MED): neither withdrawable nor refundable until decided. */
  merchantBlocked: (merchantId: string) => `merchant:${merchantId}:blocked`,
  platformFees: 'platform:fees',
  /** Money received from Pix payers through the provider (contra account, goes negative). */
  pixPayins: 'external:pix_payins',
  /** Money received from boleto payers (paid by barcode) through the provider (contra account). */
  boletoPayins: 'external:boleto_payins',
  /** Money sent out through the provider (contra account). */
  providerClearing: 'external:provider_clearing',
} as const;

export interface AccountSpec {
  code: string;
  kind: 'MERCHANT_AVAILABLE' | 'MERCHANT_RESERVED' | 'MERCHANT_BLOCKED' | 'PLATFORM_FEES' | 'EXTERNAL';
  merchantId: string | null;
  allowNegative: boolean;
}

export function describeAccount(code: string): AccountSpec {
  const merchant = /^merchant:([0-9a-f-]{36}):(available|reserved|blocked)$/.exec(code);
  if (merchant) {
    return {
      code,
      kind:
        merchant[2] === 'available'
          ? 'MERCHANT_AVAILABLE'
          : merchant[2] === 'reserved'
            ? 'MERCHANT_RESERVED'
            : 'MERCHANT_BLOCKED',
      merchantId: merchant[1],
      allowNegative: false,
    };
  }
  if (code === accounts.platformFees) return { code, kind: 'PLATFORM_FEES', merchantId: null, allowNegative: false };
  if (code.startsWith('external:')) return { code, kind: 'EXTERNAL', merchantId: null, allowNegative: true };
  throw new Error(`unknown ledger account code ${code}`);
}
