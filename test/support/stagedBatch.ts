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
  const batchId = await stageBatch(
    merchantId,
    Array.from({ length: n }, () => amountCents),
  );
  return { merchantId, batchId };
}

/** A payout batch as the API stages it (status CREATED, items PENDING, no fee): its id. */
export async function stageBatch(
  merchantId: string,
  itemsCents: number[],
  opts: { description?: string; recipient?: (rowIndex: number) => { pixKey: string; name: string } } = {},
): Promise<string> {
  const batchId = crypto.randomUUID();
  const recipient = opts.recipient ?? ((i: number) => ({ pixKey: `r${i}@example.com`, name: `R ${i}` }));
  await PayoutBatch.create({
    id: batchId,
    merchantId,
    idempotencyKey: `wf-${batchId}`,
    status: 'CREATED',
    description: opts.description ?? null,
    metadata: null,
    itemsCount: itemsCents.length,
    totalAmountCents: itemsCents.reduce((sum, c) => sum + c, 0),
    totalFeeCents: 0,
    cancelReason: null,
    completedAt: null,
  });
  await PayoutItem.bulkCreate(
    itemsCents.map((amountCents, rowIndex) => ({
      id: crypto.randomUUID(),
      batchId,
      merchantId,
      rowIndex,
      status: 'PENDING' as const,
      amountCents,
      feeCents: 0,
      pixKey: recipient(rowIndex).pixKey,
      pixKeyType: 'EMAIL',
      recipientName: recipient(rowIndex).name,
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
  return batchId;
}
