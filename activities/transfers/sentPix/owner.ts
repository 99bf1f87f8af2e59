import { payoutStore } from '../../../db/payouts';
import { withdrawalStore } from '../../../db/withdrawals';

/** Whose send it is: a withdrawal, a payout item (of a batch), or none of ours we can credit. */
export type Owner =
  | { type: 'withdrawal'; id: string; merchantId: string; sentCents: number; settled: boolean; reserved: boolean }
  | {
      type: 'payout_item';
      id: string;
      batchId: string;
      merchantId: string;
      sentCents: number;
      settled: boolean;
      reserved: boolean;
    };

export async function ownerOf(reference: string): Promise<Owner | null> {
  const withdrawal = await withdrawalStore.findWithdrawal(reference);
  if (withdrawal)
    return {
      type: 'withdrawal',
      id: withdrawal.id,
      merchantId: withdrawal.merchantId,
      sentCents: withdrawal.amountCents,
      settled: withdrawal.status === 'COMPLETED',
      reserved: withdrawal.status === 'PROCESSING',
    };
  const item = await payoutStore.findItem(reference);
  if (item)
    return {
      type: 'payout_item',
      id: item.id,
      batchId: item.batchId,
      merchantId: item.merchantId,
      sentCents: item.amountCents,
      settled: item.status === 'PAID',
      reserved: item.status === 'SENDING',
    };
  return null;
}
