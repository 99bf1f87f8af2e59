/**
 * payItems: a slice of a chunk paid through a sliding window of transfers: items are claimed
 * (claimItems.ts) a wave ahead, sent (sendItem.ts) by `concurrency` lanes, each taking the next
 * claimed item as soon as its transfer is answered, and settled (settleItems.ts) as the answers
 * come in, so the database round trips overlap the transfers and no transfer waits for a slower one.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { PSP_BALANCE_INSUFFICIENT } from '../../core/transfers/failures';
import type { PixProvider } from '../../core/provider';
import { payoutStore } from '../../db/payouts';
import { accountCovers } from '../transfers/accountBalance';
import { TransferFailureTypes } from '../transfers/transferPath';
import type { TransferDecision, Unconfirmed } from '../transfers/transferSteps';
import { ClaimWindow, type Wave } from './claimWindow';
import { unsettledRows } from './chunkItems';
import type { PayoutDeps } from './deps';
import { sendItem } from './sendItem';
import type { ClaimedItem } from './claimItems';
import { markUnconfirmed, settleItems } from './settleItems';

/** How long one payItems call claims new items (a cancel from Temporal is seen between calls). */
const SLICE_BUDGET_MS = 2_000;

/** Answers of a slice sent but not yet settled, at most, in waves: bounds what a retry must look up at the provider. */
const MAX_UNSETTLED_WAVES = 4;

type SliceArgs = { batchId: string; fromRow: number; toRow: number; concurrency: number };

/** One item's send: decided (settle or release it), or unconfirmed (the grace period, then resolveItem). */
interface Sent {
  itemId: string;
  sent: TransferDecision | Unconfirmed;
}

/** What one payItems call has seen so far, shared by its claim, send and settle steps. */
export interface Slice {
  heartbeat: () => void;
  /** The items the provider refused to take and has no record of. */
  unconfirmed: string[];
  /** The first ProviderUnavailable: thrown once every other item was settled. */
  unavailable: unknown;
  /** The first other error: nothing more is claimed or sent after it. */
  stopError: unknown;
  /** Answers sent back and not yet settled. */
  unsettled: Sent[];
  /** The settle running now, if any. */
  settling: Promise<void> | null;
}

/**
 * Pays the PENDING and SENDING items of one row range (a slice of a chunk), `concurrency`
 * transfers in flight: items are claimed a wave of `concurrency` at a time in one transaction,
 * each sent as soon as a lane is free (item id as idempotency key, the provider asked first for
 * an item an earlier attempt may have sent), and the answers settled, as many as came in, in one
 * transaction. What stays per item: the claim before the send, the key at the provider, the
 * ledger movement key. A retry of this activity resumes from the database: settled items are
 * not picked again.
 *
 * Stops claiming when the merchant may not pay out (parked: true), or when the batch carries a
 * cancel intent. A transfer left unknown by a provider that did not answer is retried by
 * throwing at the end of the slice (Temporal's backoff), after every other item was settled.
 * Returns the items the provider refused to take and has no record of: the caller waits
 * TRANSFER_GRACE, then `resolveItem`s them; and, when it stopped claiming after
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
  const waves: Wave[] = [];
  for (let i = 0; i < rows.length; i += size)
    waves.push({ ids: rows.slice(i, i + size).map((r) => r.id), fromRow: rows[i].row_index });
  const window = new ClaimWindow(deps, slice, { batchId: args.batchId, waves, size, budgetMs: SLICE_BUDGET_MS });
  await Promise.all(Array.from({ length: size }, () => sendLane(deps, slice, window, size)));
  await settled(slice);
  settleWhatCameIn(deps, slice);
  await settled(slice);
  if (slice.stopError !== null) throw slice.stopError;
  if (slice.unavailable !== null) throw slice.unavailable;
  return { unconfirmed: slice.unconfirmed, parked: window.parked, resumeFromRow: window.resumeFromRow };
}

/**
 * One of the slice's `size` lanes: sends the next claimed item as soon as the one before is
 * answered, and starts settling what came in. At most MAX_UNSETTLED_WAVES waves of answers wait
 * for their settle; past that the lane waits for the settle running now. A claimed item left
 * unsent after an error stays SENDING: the retry follows it through, provider first.
 */
async function sendLane(deps: PayoutDeps, slice: Slice, window: ClaimWindow, size: number): Promise<void> {
  for (let item = await window.next(); item !== null; item = await window.next()) {
    const sent = await sendOne(deps, slice, item);
    if (sent !== null) slice.unsettled.push(sent);
    settleWhatCameIn(deps, slice);
    while (slice.unsettled.length >= MAX_UNSETTLED_WAVES * size && slice.settling !== null) await slice.settling;
  }
}

/** Sends one claimed item: its answer, or null when it failed (the failure kept on the slice). */
async function sendOne(deps: PayoutDeps, slice: Slice, item: ClaimedItem): Promise<Sent | null> {
  try {
    return { itemId: item.id, sent: await sendItem(deps, item) };
  } catch (err) {
    // Not ours (reference or amount differ): stays SENDING with its funding reserved, alerted.
    if (err instanceof ApplicationFailure && err.type === TransferFailureTypes.mismatch) return null;
    if (err instanceof ApplicationFailure && err.type === TransferFailureTypes.unavailable) slice.unavailable ??= err;
    else slice.stopError ??= err;
    return null;
  } finally {
    slice.heartbeat();
  }
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
