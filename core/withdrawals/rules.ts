/**
 * Withdrawal (saque) rules shared by the API, the workflow's activities and the presenter.
 * Pure: statuses, the fee, and the snapshots taken when a withdrawal is requested, so the
 * response keeps showing where the money went even if the merchant changes its key later.
 */
import type { PixKeyType } from '../provider';

/**
 * PROCESSING: amount + fee reserved, the transfer is being sent.
 * COMPLETED: the provider confirmed the transfer; money left through provider clearing.
 * FAILED: the provider refused it (or it could not be processed); the reserve was returned.
 * CANCELLED: cancelled by an operator before any transfer was sent; the reserve was returned.
 */
export const WITHDRAWAL_STATUSES = ['PROCESSING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];

/** The merchant's payment account at the gateway has one branch, as payment accounts do. */
export const PAYMENT_ACCOUNT_BRANCH = '0001';

export interface AccountSnapshot {
  institution: string | null;
  type: string | null;
  holderName: string | null;
  holderDocument: string | null;
  branch: string | null;
  account: string | null;
}

export interface BeneficiarySnapshot {
  name: string;
  document: string | null;
  documentType: 'CPF' | 'CNPJ' | null;
  pixKey: string;
  pixKeyType: PixKeyType;
  /** The receiving bank account behind the key is known only to the Pix directory: null fields. */
  account: AccountSnapshot;
}

export interface MerchantPayoutProfile {
  id: string;
  name: string;
  document: string | null;
  documentType: 'CPF' | 'CNPJ' | null;
  pixKey: string | null;
  pixKeyType: PixKeyType | null;
  pixKeyHolderName: string | null;
  pixKeyHolderDocument: string | null;
  withdrawalFeeCents: number;
}

/** Fixed fee per withdrawal, from the merchant's setting (0 by default). */
export function withdrawalFee(merchant: Pick<MerchantPayoutProfile, 'withdrawalFeeCents'>): number {
  const fee = merchant.withdrawalFeeCents ?? 0;
  if (!Number.isSafeInteger(fee) || fee < 0) throw new Error(`invalid withdrawal fee ${fee}`);
  return fee;
}

export function beneficiarySnapshot(merchant: MerchantPayoutProfile): BeneficiarySnapshot | null {
  if (!merchant.pixKey || !merchant.pixKeyType) return null;
  const document = merchant.pixKeyHolderDocument ?? merchant.document;
  return {
    name: merchant.pixKeyHolderName ?? merchant.name,
    document,
    documentType: document ? (document.length === 14 ? 'CNPJ' : 'CPF') : null,
    pixKey: merchant.pixKey,
    pixKeyType: merchant.pixKeyType,
    account: { institution: null, type: null, holderName: null, holderDocument: null, branch: null, account: null },
  };
}

/** The merchant's own payment account at the gateway: where the withdrawn money comes from. */
export function sourceAccountSnapshot(
  merchant: Pick<MerchantPayoutProfile, 'id' | 'name' | 'document'>,
  platformInstitution: string,
): AccountSnapshot {
  return {
    institution: platformInstitution,
    type: 'PAYMENT',
    holderName: merchant.name,
    holderDocument: merchant.document,
    branch: PAYMENT_ACCOUNT_BRANCH,
    account: merchant.id,
  };
}
