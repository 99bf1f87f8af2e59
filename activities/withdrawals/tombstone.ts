import type { Transaction } from 'sequelize';
import { NOT_PROCESSED } from '../../core/transfers/failures';
import { settlementStore } from '../../db/settlements';
import { withdrawalStore } from '../../db/withdrawals';
import type { WithdrawalInput } from '../../workflows/withdrawals/types';
import type { WithdrawalDeps } from './deps';
import { recordWithdrawalEvent } from './event';
import { boundToKey } from './reserve';

/**
 * The give-up's terminal row (FAILED / NOT_PROCESSED, no money moved) under the request's id.
 * It is the request's one effect: bound to its idempotency key like a reservation (the
 * withdrawal's own key, or a settlement's label), so every later attempt with the key answers
 * it instead of writing another row; and announced as every failed withdrawal is.
 */
export async function writeTombstone(
  deps: WithdrawalDeps,
  input: WithdrawalInput,
  transaction: Transaction,
): Promise<void> {
  // A key that already made another withdrawal (its claim expired, the key reused) stays that one's.
  const key = (await boundToKey(deps, input, transaction)) ? null : input.idempotencyKey;
  // An all-available request has no amount of its own (0): the tombstone moved no money either
  // way (FAILED, no ledger entry), and 1 cent only satisfies the amount CHECK.
  const amountCents = Math.max(input.amountCents, 1);
  const row = await withdrawalStore.createWithdrawal(
    {
      id: input.withdrawalId,
      merchantId: input.merchantId,
      userId: input.userId,
      amountCents,
      feeCents: 0,
      totalDebitedCents: amountCents,
      status: 'FAILED',
      description: input.description,
      // As in a reservation: a settlement's key is bound on its label, not on its withdrawal.
      idempotencyKey: input.settlement ? null : key,
      partnerTxId: null,
      providerTransferId: null,
      providerEndToEndId: null,
      failureCode: NOT_PROCESSED.code,
      failureReason: NOT_PROCESSED.reason,
      beneficiarySnapshot: null,
      sourceAccountSnapshot: null,
      processedAt: new Date(),
    },
    transaction,
  );
  if (input.settlement) await settlementStore.insertSettlement(deps.sequelize, input.settlement, row, key, transaction);
  await recordWithdrawalEvent('withdrawal.failed', row, transaction, deps.platformInstitution);
}
