/**
 * payItems: a slice of a chunk paid in waves, each claimed (claimItems.ts), sent (sendItem.ts) and
 * settled (settleItems.ts) as a pipeline, so the database round trips overlap the transfers.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { PSP_BALANCE_INSUFFICIENT } from '../../core/transfers/failures';
import type { PixProvider } from '../../core/provider';
import { payoutStore } from '../../db/payouts';
import { accountCovers } from '../transfers/accountBalance';
import { TransferFailureTypes } from '../transfers/transferPath';
import type { TransferDecision, Unconfirmed } from '../transfers/transferSteps';
import { claimItems, type ClaimedItem } from './claimItems';
import { unsettledRows } from './chunkItems';
import type { PayoutDeps } from './deps';
import { sendItem } from './sendItem';
import { markUnconfirmed, settleItems } from './settleItems';

/** How long one payItems call starts new waves (a cancel from Temporal is seen between calls). */
const SLICE_BUDGET_MS = 2_000;

/** Waves of a slice sent but not yet settled, at most: bounds what a retry must look up at the provider. */
const MAX_UNSETTLED_WAVES = 4;

type SliceArgs = { batchId: string; fromRow: number; toRow: number; concurrency: number };

/** One item's send: decided (settle or release it), or unconfirmed (the grace period, then resolveItem). */
interface Sent {
  itemId: string;
  sent: TransferDecision | Unconfirmed;
}

/** What one payItems call has seen so far, shared by its send and settle steps. */
interface Slice {
  heartbeat: () => void;
  /** The items the provider refused to take and has no record of. */
  unconfirmed: string[];
  /** The first ProviderUnavailable: thrown once every other item was settled. */
  unavailable: unknown;
  /** The first other error: no new wave is claimed after it. */
  stopError: unknown;
  /** Answers sent back and not yet settled. */
  unsettled: Sent[];
  /** The settle running now, if any. */
  settling: Promise<void> | null;
}

/**
 * Pays the PENDING and SENDING items of one row range (a slice of a chunk) in waves of
 * `concurrency`: each wave is claimed in one transaction, its transfers sent at once (item id
 * as idempotency key, the provider asked first for an item an earlier attempt may have sent),
 * and its answers settled in one transaction. What stays per item: the claim before the send,
 * the key at the provider, the ledger movement key. A retry of this activity resumes from the
 * database: settled items are not picked again.
 *
 * Stops claiming when the merchant may not pay out (parked: true), or when the batch carries a
 * cancel intent. A transfer left unknown by a provider that did not answer is retried by
 * throwing at the end of the slice (Temporal's backoff), after every other item was settled.
 * Returns the items the provider refused to take and has no record of: the caller waits
 * TRANSFER_GRACE, then `resolveItem`s them; and, when it stopped starting waves after
 * SLICE_BUDGET_MS, the row to resume from (so a cancel from Temporal is seen within seconds
 * however large the slice).
 */
export async function payItems(
  deps: PayoutDeps,
  args: SliceArgs,
): Promise<{ unconfirmed: string[]; parked: boolean; resumeFromRow: number | null }> {
  const rows = await unsettledRows(deps, args);
  if (await parkedForBalance(deps, args, rows)) return { unconfirmed: [], parked: true, resumeFromRow: null };
  const slice: Slice = {
    heartbeat: activityHeartbeat(),
    unconfirmed: [],
    unavailable: null,
    stopError: null,
    unsettled: [],
    settling: null,
  };
  const size = Math.max(1, args.concurrency);
  const waves: Array<{ ids: string[]; fromRow: number }> = [];
  for (let i = 0; i < rows.length; i += size)
    waves.push({ ids: rows.slice(i, i + size).map((r) => r.id), fromRow: rows[i].row_index });
  const { parked, resumeFromRow } = await payWaves(deps, slice, args.batchId, waves, size);
  await settled(slice);
  settleWhatCameIn(deps, slice);
  await settled(slice);
  if (slice.stopError !== null) throw slice.stopError;
  if (slice.unavailable !== null) throw slice.unavailable;
  return { unconfirmed: slice.unconfirmed, parked, resumeFromRow };
}

/**
 * A pipeline of three steps, so the database round trips overlap the transfers: while wave
 * w is at the provider, wave w+1 is being claimed, and the answers of the waves before are
 * settled, as many as have come in since the last settle, in one transaction (a settle
 * costs more than a wave of transfers, and the hot ledger rows are then taken once for all
 * of them). At most MAX_UNSETTLED_WAVES waves are sent and unsettled at once. A claimed item
 * is always sent; if this attempt dies, the next one follows it through (provider first).
 */
async function payWaves(
  deps: PayoutDeps,
  slice: Slice,
  batchId: string,
  waves: Array<{ ids: string[]; fromRow: number }>,
  size: number,
): Promise<{ parked: boolean; resumeFromRow: number | null }> {
  // Past the budget no new wave starts: the chunk looks at a cancel from Temporal between calls.
  const budgetEnds = Date.now() + SLICE_BUDGET_MS;
  let resumeFromRow: number | null = null;
  let parked = false;
  const claim = (w: number) => observed(claimItems(deps, { itemIds: waves[w].ids, batchId }));
  let claiming = waves.length > 0 ? claim(0) : null;
  for (let w = 0; claiming !== null; w++) {
    const claimed = await claiming;
    parked ||= claimed.parked;
    const last = claimed.parked || claimed.cancelled || w + 1 >= waves.length;
    if (!last && Date.now() >= budgetEnds) resumeFromRow = waves[w + 1].fromRow;
    claiming = last || resumeFromRow !== null ? null : claim(w + 1);
    slice.unsettled.push(...(await sendWave(deps, slice, claimed.claimed)));
    settleWhatCameIn(deps, slice);
    if (slice.unsettled.length >= MAX_UNSETTLED_WAVES * size) await settled(slice);
    if (slice.stopError !== null && claiming !== null) {
      // Stop here: what the next claim took stays SENDING, followed through by the retry.
      await claiming.catch((err: unknown) => (slice.stopError ??= err));
      claiming = null;
    }
  }
  return { parked, resumeFromRow };
}

async function sendWave(deps: PayoutDeps, slice: Slice, claimed: ClaimedItem[]): Promise<Sent[]> {
  const answers: Sent[] = [];
  await Promise.all(
    claimed.map(async (item) => {
      try {
        answers.push({ itemId: item.id, sent: await sendItem(deps, item) });
      } catch (err) {
        // Not ours (reference or amount differ): stays SENDING with its funding reserved, alerted.
        if (err instanceof ApplicationFailure && err.type === TransferFailureTypes.mismatch) return;
        if (err instanceof ApplicationFailure && err.type === TransferFailureTypes.unavailable)
          slice.unavailable ??= err;
        else slice.stopError ??= err;
      } finally {
        slice.heartbeat();
      }
    }),
  );
  return answers;
}

/** Starts settling the answers that came in, unless a settle is running (it takes them when it ends). */
function settleWhatCameIn(deps: PayoutDeps, slice: Slice): void {
  if (slice.settling !== null || slice.unsettled.length === 0) return;
  slice.settling = settleWave(deps, slice, slice.unsettled.splice(0))
    .catch((err: unknown) => {
      slice.stopError ??= err;
    })
    .finally(() => {
      slice.settling = null;
      if (slice.stopError === null) settleWhatCameIn(deps, slice);
    });
}

async function settled(slice: Slice): Promise<void> {
  while (slice.settling !== null) await slice.settling;
}

async function settleWave(deps: PayoutDeps, slice: Slice, answers: Sent[]): Promise<void> {
  const unknown: Array<{ itemId: string; code: string }> = [];
  const decided: Array<{ itemId: string; decision: TransferDecision }> = [];
  for (const { itemId, sent } of answers) {
    if (sent.kind === 'UNCONFIRMED') unknown.push({ itemId, code: sent.code });
    else decided.push({ itemId, decision: sent });
  }
  await markUnconfirmed(deps, unknown);
  slice.unconfirmed.push(...unknown.map((a) => a.itemId));
  await settleItems(deps, decided);
}

/**
 * A slice the PSP account cannot cover now is parked before anything is claimed: its items stay
 * PENDING with PSP_BALANCE_INSUFFICIENT on them, the funding reserved, and the chunk looks again
 * with the parking backoff. Items already SENDING are always followed through first.
 */
async function parkedForBalance(
  deps: PayoutDeps,
  args: { batchId: string; fromRow: number; toRow: number },
  rows: Array<{ status: 'PENDING' | 'SENDING'; amount_cents: number }>,
): Promise<boolean> {
  if (rows.some((r) => r.status === 'SENDING')) return false;
  const pendingCents = rows.reduce((sum, r) => sum + Number(r.amount_cents), 0);
  if (await accountCovers(await batchProvider(deps, args.batchId), pendingCents, deps.logger)) return false;
  await payoutStore.markItemsAwaitingBalance(deps.sequelize, args, PSP_BALANCE_INSUFFICIENT);
  return true;
}

/** The provider of the account the batch is paid from (its merchant's own connection, or the platform's). */
async function batchProvider(deps: PayoutDeps, batchId: string): Promise<PixProvider> {
  if (!deps.accounts) return deps.provider;
  const batch = await payoutStore.findBatch(batchId);
  return (await deps.accounts.forConnection(batch?.pspConnectionId ?? null)).provider;
}

/** Marks a promise whose failure is awaited later as handled, so a failure meanwhile does not end the process. */
function observed<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}

/** Heartbeats when running as an activity (so a killed worker's slice is retried in seconds); a no-op when called directly. */
function activityHeartbeat(): () => void {
  let ctx: Context;
  try {
    ctx = Context.current();
  } catch {
    return () => undefined;
  }
  return () => ctx.heartbeat();
}
