/**
 * A funded merchant with payouts enabled and a staged payout batch (status CREATED, items
 * PENDING): what the API would have made, for workflow tests that start PayoutBatch themselves.
 */
import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { writeLedgerEntry } from '../../activities/ledger/ledgerWriter';
import { chargePaidEntry } from '../../core/ledger/postings';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { PayoutBatch, PayoutItem } from '../../db/models';

export async function stagedBatch(
  sequelize: Sequelize,
  n: number,
  opts: { amountCents?: number; fundingCents?: number; name?: string } = {},
): Promise<{ merchantId: string; batchId: string }> {
  const amountCents = opts.amountCents ?? 1_000;
  const { merchantId } = await createMerchantWithCredential(
    sequelize,
    { name: opts.name ?? 'Pagadora WF', payoutsEnabled: true },
    crypto.randomBytes(32).toString('hex'),
  );
  await sequelize.transaction((t) =>
    writeLedgerEntry(
      sequelize,
      chargePaidEntry({
        chargeId: crypto.randomUUID(),
        merchantId,
        amountCents: opts.fundingCents ?? 100_000,
        feeCents: 0,
        splits: [],
      }),
      t,
    ),
  );
  const batchId = crypto.randomUUID();
  await PayoutBatch.create({
    id: batchId,
    merchantId,
    idempotencyKey: `wf-${batchId}`,
    status: 'CREATED',
    description: null,
    metadata: null,
    itemsCount: n,
    totalAmountCents: n * amountCents,
    totalFeeCents: 0,
    cancelReason: null,
    completedAt: null,
  });
  await PayoutItem.bulkCreate(
    Array.from({ length: n }, (_, rowIndex) => ({
      id: crypto.randomUUID(),
      batchId,
      merchantId,
      rowIndex,
      status: 'PENDING' as const,
      amountCents,
      feeCents: 0,
      pixKey: `r${rowIndex}@example.com`,
      pixKeyType: 'EMAIL',
      recipientName: `R ${rowIndex}`,
      recipientDocument: null,
      referenceId: null,
      providerTransferId: null,
      endToEndId: null,
      lastError: null,
      lastErrorCode: null,
      settledAt: null,
      releasedAt: null,
    })),
  );
  return { merchantId, batchId };
}
