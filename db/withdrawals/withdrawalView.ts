/** Withdrawals presented as the spec's Withdrawal object (one merchant read per call). */
import { Merchant, type Withdrawal } from '../models';
import { presentWithdrawal } from '../../core/withdrawals/present';
import { PLATFORM_INSTITUTION } from '../charges/sellerChargeView';

export async function presentWithdrawalRows(
  merchantId: string,
  rows: Withdrawal[],
): Promise<Record<string, unknown>[]> {
  if (rows.length === 0) return [];
  const merchant = await Merchant.findByPk(merchantId);
  if (!merchant) throw new Error(`merchant ${merchantId} is missing`);
  return rows.map((w) =>
    presentWithdrawal({
      withdrawal: {
        id: w.id,
        userId: w.userId,
        amountCents: w.amountCents,
        feeCents: w.feeCents,
        totalDebitedCents: w.totalDebitedCents,
        status: w.status,
        idempotencyKey: w.idempotencyKey,
        partnerTxId: w.partnerTxId,
        providerTransferId: w.providerTransferId,
        providerEndToEndId: w.providerEndToEndId,
        failureReason: w.failureReason,
        beneficiarySnapshot: w.beneficiarySnapshot,
        sourceAccountSnapshot: w.sourceAccountSnapshot,
        createdAt: w.createdAt,
        processedAt: w.processedAt,
      },
      merchant,
      platformInstitution: PLATFORM_INSTITUTION,
    }),
  );
}
