/**
 * A BoletoBatch item issued (the batch's other steps are in batch.ts). Each item is issued as a
 * BOLETO charge through the one issue path (db/charges/issue.ts, which the API's issueCharge also runs: the item's own
 * ChargeLifecycle, Update-With-Start), with the worker's Temporal client; the activity never
 * talks to the provider itself.
 *
 * A try's charge id is derived from the item id and the try number, so:
 * - a retried try (worker crash) joins the same ChargeLifecycle instead of issuing twice;
 * - a new try after a failed one gets a fresh charge (the failed run left a tombstone on its id);
 * - a charge committed by an earlier try whose answer was lost is found and linked, not doubled.
 */
import crypto from 'node:crypto';
import { ApplicationFailure, Context } from '@temporalio/activity';
import { endOfDueDateInBrasilia } from '../../core/boletos/dueTime';
import { boletoBatchStore } from '../../db/boletos';
import { chargeStore, issueChargeRaw, issueFailureOf } from '../../db/charges';
import { merchantStore } from '../../db/identity';
import { workflowHandle } from '../../core/temporal/workflows';
import { cancelChargeUpdate, chargeLifecycleWorkflow, chargeWorkflowId } from '../../workflows/charges/definitions';
import {
  BoletoBatchFailureTypes,
  MAX_BOLETO_ITEM_ATTEMPTS,
  type BoletoItemOutcome,
} from '../../workflows/boletos/types';
import { failBoletoBatchItem } from './batch';

/** Charge id of try `attempt` (1-based) of an item: a UUID-shaped digest, stable across retries. */
export function itemChargeId(itemId: string, attempt: number): string {
  const hex = crypto.createHash('sha256').update(`boleto-batch-item:${itemId}:${attempt}`).digest('hex');
  // Version 8 (custom) UUID layout: a valid uuid for the charges table and the API's z.uuid().
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export async function issueBoletoBatchItem(args: { itemId: string }): Promise<BoletoItemOutcome> {
  const ctx = Context.current();
  const attempt = ctx.info.attempt;
  const item = await boletoBatchStore.findItemById(args.itemId);
  if (!item) return 'SKIPPED';
  if (item.status !== 'PENDING') return item.status as BoletoItemOutcome;
  const batch = await boletoBatchStore.findBatch(item.batchId);
  if (!batch) return 'SKIPPED';

  // An earlier try may have committed its charge and lost the answer: link it.
  const earlier = Array.from({ length: attempt - 1 }, (_, i) => itemChargeId(item.id, i + 1));
  const committed = earlier.length ? await chargeStore.anyExisting(earlier) : null;
  if (committed) return markIssued(item.id, committed.id, ctx.client);

  await boletoBatchStore.setItemAttempts(item.id, attempt);
  if (!(await merchantStore.isActiveMerchant(batch.merchantId)))
    return fail(item.id, 'MERCHANT_INACTIVE', 'the merchant is not active; nothing was issued');

  const chargeId = itemChargeId(item.id, attempt);
  try {
    await issueChargeRaw(
      { temporal: ctx.client, taskQueue: ctx.info.taskQueue },
      {
        chargeId,
        merchantId: batch.merchantId,
        amountCents: item.amountCents,
        feeCents: item.feeCents,
        description: item.description,
        externalRef: item.externalRef,
        metadata: { boletoBatchId: batch.id, rowIndex: item.rowIndex },
        splits: [],
        expiresAt: endOfDueDateInBrasilia(item.dueDate),
        // Which request made it: the batch's key and the row.
        idempotencyKey: `${batch.idempotencyKey}#${item.rowIndex}`,
        payer: { name: item.payerName, taxId: item.payerTaxId, email: item.payerEmail },
        webhook: null,
        method: 'BOLETO',
        boleto: {
          finePercentBps: batch.fineBps,
          monthlyInterestBps: batch.interestMonthlyBps,
          graceDays: batch.graceDays,
        },
      },
    );
  } catch (err) {
    const failure = issueFailureOf(err);
    if (!failure) throw err;
    if (!failure.transient) return fail(item.id, failure.code, failure.message);
    if (attempt >= MAX_BOLETO_ITEM_ATTEMPTS)
      return fail(item.id, failure.code, `${failure.message}, on each of ${attempt} tries`);
    // Retryable: the activity's retry policy tries again after its backoff, with a new charge.
    throw ApplicationFailure.retryable(failure.message, BoletoBatchFailureTypes.itemRetry);
  }
  return markIssued(item.id, chargeId, ctx.client);
}

/** ISSUED unless the row was cancelled meanwhile: then its fresh boleto is cancelled too. */
async function markIssued(itemId: string, chargeId: string, client: Context['client']): Promise<BoletoItemOutcome> {
  if (await boletoBatchStore.markItemIssued(itemId, chargeId)) return 'ISSUED';
  await boletoBatchStore.linkItemCharge(itemId, chargeId);
  try {
    await workflowHandle(client, chargeLifecycleWorkflow, chargeWorkflowId(chargeId)).executeUpdate(
      cancelChargeUpdate,
      {
        reason: 'its batch row was cancelled while it was being issued',
      },
    );
  } catch (err) {
    // Already closed (paid is impossible this early; expired or cancelled): nothing to undo.
    if (
      (err as { name?: string }).name !== 'WorkflowUpdateFailedError' &&
      (err as { name?: string }).name !== 'WorkflowNotFoundError'
    )
      throw err;
  }
  return 'CANCELLED';
}

async function fail(itemId: string, code: string, message: string): Promise<BoletoItemOutcome> {
  await failBoletoBatchItem({ itemId, code, message });
  return 'FAILED';
}
