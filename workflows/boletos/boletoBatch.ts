/**
 * BoletoBatch (workflow id `boleto-batch-<id>`): the API stores the batch and its item rows, then
 * starts this run with Update-With-Start; the update answers once the run has read the item ids
 * (202 to the client). The run issues the items with bounded concurrency, each one an activity
 * that starts the item's own ChargeLifecycle through the one issue path
 * (db/charges/issue.ts) and records the outcome on the row:
 * - a transient provider failure is retried by the activity's retry policy (a new charge each
 *   try, MAX_BOLETO_ITEM_ATTEMPTS in all), then recorded FAILED with our reason;
 * - a permanent one (the provider refused) is recorded FAILED at once;
 * - anything else that exhausts the retries is recorded FAILED too, so no row stays PENDING.
 * Then finishBoletoBatch counts the rows and closes the batch (COMPLETED or
 * COMPLETED_WITH_FAILURES). One activity per item keeps a 1,000-item history near 4,000 events.
 */
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { BoletoBatchActivities } from '../../activities/boletos';
import { BusinessStatusKey } from '../../core/temporal/searchAttributes';
import { acceptBoletoBatchUpdate, boletoBatchProgressQuery } from './definitions';
import {
  BoletoBatchFailureTypes,
  MAX_BOLETO_ITEM_ATTEMPTS,
  type BoletoBatchAccepted,
  type BoletoBatchInput,
  type BoletoBatchOutcome,
} from './types';

// On the synchronous path of POST /boletos: a few quick tries, then the API answers 503.
const loading = proxyActivities<BoletoBatchActivities>({
  startToCloseTimeout: '10 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    backoffCoefficient: 2,
    maximumAttempts: 3,
    nonRetryableErrorTypes: [BoletoBatchFailureTypes.batchNotFound],
  },
});

// One try per attempt: each try waits for a ChargeLifecycle's issue (itself a few provider tries).
const issuing = proxyActivities<BoletoBatchActivities>({
  startToCloseTimeout: '90 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: MAX_BOLETO_ITEM_ATTEMPTS,
  },
});

// Recording outcomes must eventually happen: retried until it does.
const recording = proxyActivities<BoletoBatchActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

export async function boletoBatch(input: BoletoBatchInput): Promise<BoletoBatchOutcome> {
  let phase = 'ACCEPTING';
  let accepted: BoletoBatchAccepted | undefined;
  let acceptFailure: ApplicationFailure | undefined;
  let done = 0;

  setHandler(boletoBatchProgressQuery, () => ({ phase, done, itemsCount: input.itemsCount }));
  setHandler(acceptBoletoBatchUpdate, async () => {
    await condition(() => accepted !== undefined || acceptFailure !== undefined);
    if (acceptFailure) throw acceptFailure;
    return accepted as BoletoBatchAccepted;
  });

  let itemIds: string[];
  try {
    itemIds = await loading.listPendingBoletoItems({ batchId: input.batchId });
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    const type = cause instanceof ApplicationFailure ? cause.type : undefined;
    acceptFailure = ApplicationFailure.nonRetryable(
      type === BoletoBatchFailureTypes.batchNotFound ? 'the batch is not stored' : 'the batch could not be read; retry',
      type ?? 'BoletoBatchUnavailable',
    );
    await condition(allHandlersFinished);
    throw acceptFailure;
  }
  accepted = { batchId: input.batchId, status: 'PROCESSING', itemsCount: input.itemsCount };
  phase = 'PROCESSING';
  upsertSearchAttributes([{ key: BusinessStatusKey, value: phase }]);

  let next = 0;
  const lane = async () => {
    while (next < itemIds.length) {
      const itemId = itemIds[next++];
      try {
        await issuing.issueBoletoBatchItem({ itemId });
      } catch (err) {
        // Out of tries on something that is not an issue failure (database, worker): the row
        // still gets an outcome.
        const message = String((err as { cause?: { message?: unknown } }).cause?.message ?? 'issue failed');
        await recording.failBoletoBatchItem({
          itemId,
          code: 'ISSUE_FAILED',
          message: `the boleto could not be issued after ${MAX_BOLETO_ITEM_ATTEMPTS} tries (${message.slice(0, 200)})`,
        });
      }
      done++;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(input.concurrency, itemIds.length)) }, lane));

  const outcome = await recording.finishBoletoBatch({ batchId: input.batchId });
  phase = outcome.status;
  upsertSearchAttributes([{ key: BusinessStatusKey, value: phase }]);
  await condition(allHandlersFinished);
  return outcome;
}
