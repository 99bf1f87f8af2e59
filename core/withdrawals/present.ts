/**
 * The spec's "Withdrawal (seller saque)" object, built from stored data. Pure.
 * Never shows a raw provider payload or the supplier: `provider` is the generic PIX_GATEWAY and
 * the provider's transfer id is shown as a stable opaque reference, because a PSP's own ids
 * can carry its name. The Pix network's id (endToEndId) is shown as is.
 */
import crypto from 'node:crypto';
import type { AccountSnapshot, BeneficiarySnapshot } from './rules';
import { sourceAccountSnapshot } from './rules';
import { maskDocument, maskPixKey } from '../masking';

export const WITHDRAWAL_PROVIDER_LABEL = 'PIX_GATEWAY';

export interface WithdrawalSource {
  withdrawal: {
    id: string;
    userId: string | null;
    amountCents: number;
    feeCents: number;
    totalDebitedCents: number;
    status: string;
    idempotencyKey: string | null;
    partnerTxId: string | null;
    providerTransferId: string | null;
    providerEndToEndId: string | null;
    failureReason: string | null;
    beneficiarySnapshot: BeneficiarySnapshot | null;
    sourceAccountSnapshot: AccountSnapshot | null;
    createdAt: Date;
    processedAt: Date | null;
  };
  merchant: { id: string; name: string; email: string | null; document: string | null; documentType: string | null };
  platformInstitution: string;
}

/** `ptr_` + 24 hex of SHA-256 of the provider's id: stable, so support can match it to the stored id. */
export function publicTransferReference(providerTransferId: string): string {
  return `ptr_${crypto.createHash('sha256').update(providerTransferId).digest('hex').slice(0, 24)}`;
}

const accountFields = ['institution', 'type', 'holderName', 'holderDocument', 'branch', 'account'] as const;

function presentAccount(account: AccountSnapshot | null | undefined): Record<string, string | null> {
  return Object.fromEntries(accountFields.map((f) => [f, account?.[f] ?? null]));
}

function presentBeneficiary(snapshot: BeneficiarySnapshot | null): Record<string, unknown> {
  if (!snapshot) {
    // Withdrawals made before snapshots existed: the receiver is unknown, not guessed.
    return {
      name: null,
      document: null,
      documentMasked: null,
      documentType: null,
      pixKey: null,
      pixKeyMasked: null,
      pixKeyType: null,
      account: null,
    };
  }
  return {
    name: snapshot.name,
    document: snapshot.document,
    documentMasked: snapshot.document ? maskDocument(snapshot.document) : null,
    documentType: snapshot.documentType,
    pixKey: snapshot.pixKey,
    pixKeyMasked: maskPixKey(snapshot.pixKey, snapshot.pixKeyType),
    pixKeyType: snapshot.pixKeyType,
    account: presentAccount(snapshot.account),
  };
}

export function presentWithdrawal(src: WithdrawalSource): Record<string, unknown> {
  const { withdrawal: w, merchant } = src;
  const providerTransferId = w.providerTransferId ? publicTransferReference(w.providerTransferId) : null;
  const sourceAccount = presentAccount(
    w.sourceAccountSnapshot ?? sourceAccountSnapshot(merchant, src.platformInstitution),
  );
  return {
    id: w.id,
    amountCents: w.amountCents,
    status: w.status,
    createdAt: w.createdAt.toISOString(),
    processedAt: w.processedAt ? w.processedAt.toISOString() : null,
    userId: w.userId,
    feeCents: w.feeCents,
    totalDebitedCents: w.totalDebitedCents,
    provider: WITHDRAWAL_PROVIDER_LABEL,
    providerTransferId,
    providerEndToEndId: w.providerEndToEndId,
    partnerTxId: w.partnerTxId,
    failureReason: w.failureReason,
    idempotencyKey: w.idempotencyKey,
    payer: {
      merchantId: merchant.id,
      name: merchant.name,
      email: merchant.email,
      document: merchant.document,
      documentType: merchant.documentType,
      institution: sourceAccount.institution,
      account: sourceAccount.account,
    },
    sourceAccount,
    beneficiary: presentBeneficiary(w.beneficiarySnapshot),
    tracking: { providerTransferId, endToEndId: w.providerEndToEndId },
  };
}
