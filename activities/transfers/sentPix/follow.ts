/**
 * What a send notice (the PSP's webhook about a Pix we sent: Efí's `tipo: SOLICITACAO` entries)
 * leads to. The notice's content moves no money: it names an idEnvio, and the PSP's record for
 * it (GET by idEnvio, through the one transfer path's look-up) decides everything.
 *
 * - The send's owner still reserved and its workflow gone (terminated, lost): repaired now by
 *   the janitor's own reconcile (repair/reconciler.ts), instead of at the janitor's next run. A
 *   workflow that runs owns its money and reads the outcome itself: left alone.
 * - A completed send its recipient sent back (Efí's `devolucoes`): credited back to who funded
 *   it, once per devolução (ledger key), never more than was sent, and only once the send is
 *   settled here (a return seen before our settle waits for it: retried).
 * - A send Efí did not make (NAO_REALIZADO, by its record) whose notice gave an ISO 20022 reason:
 *   Efí's reads carry no reason, so the row released by the record says only that the recipient's
 *   side refused; the notice's reason then makes that label precise (AC03: INVALID_PIX_KEY…). A
 *   label only, on a row already released: no money moves, and a precise code is never replaced.
 * - Refunds to a payer's key that come back are not credited automatically: alerted for a person
 *   (their money was split among who funded the refund).
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import { referenceOfIdEnvio } from '../../../core/pix/apiPixIds';
import { refundStore } from '../../../db/refunds';
import { reconcileStopped } from '../repair/reconciler';
import type { SentPixDeps } from './deps';
import { sendOwnerOf, type SendOwner } from '../../../db/transfers/sendOwner';
import { refineReason } from './reason';
import { creditReturns } from './returns';

export type SentPixOutcome =
  | 'NOT_OURS'
  | 'NO_RECORD'
  | 'LEFT_TO_ITS_WORKFLOW'
  | 'REPAIRED'
  | 'SETTLED'
  | 'RELEASED'
  | 'RETURN_CREDITED'
  | 'RETURN_NEEDS_A_PERSON'
  | 'REASON_REFINED';

/** Follows one send notice (see the file comment). */
export async function followSentPix(
  deps: SentPixDeps,
  args: {
    idEnvio: string;
    /** The notice's ISO 20022 reason (gnExtras.erro.codigo), a label only. */
    reason?: string | null;
  },
): Promise<{ outcome: SentPixOutcome; credited: number }> {
  const reference = referenceOfIdEnvio(args.idEnvio);
  if (!reference) return { outcome: 'NOT_OURS', credited: 0 };
  const owner = await sendOwnerOf(reference);
  if (!owner) return followRefund(deps, reference);
  // The PSP's record first: amount and reference checked by the transfer path.
  const known = await deps.transfers.lookup({ reference, amountCents: owner.sentCents });
  if (!known) return { outcome: 'NO_RECORD', credited: 0 };
  if (owner.reserved) {
    const outcome = await repairIfStopped(deps, owner);
    // Its workflow settles or releases it in a moment; a reason or a return to apply waits for that.
    const more =
      (known.kind === 'REFUSED' && !!args.reason) ||
      (known.kind === 'COMPLETED' && (known.transfer.returns?.length ?? 0) > 0);
    if (outcome === 'LEFT_TO_ITS_WORKFLOW' && more)
      throw ApplicationFailure.retryable(`${owner.type} ${owner.id} is not settled here yet`, 'SentPixNotSettled');
    if (outcome === 'LEFT_TO_ITS_WORKFLOW' || !more) return { outcome, credited: 0 };
    Object.assign(owner, await sendOwnerOf(reference)); // repaired: read again
  }
  if (known.kind === 'REFUSED') {
    const refined = args.reason ? await refineReason(deps, owner, args.reason) : false;
    return { outcome: refined ? 'REASON_REFINED' : 'RELEASED', credited: 0 };
  }
  const returns = known.kind === 'COMPLETED' ? (known.transfer.returns ?? []) : [];
  if (returns.length === 0) return { outcome: owner.settled ? 'SETTLED' : 'RELEASED', credited: 0 };
  if (!owner.settled)
    throw ApplicationFailure.nonRetryable(
      `${owner.type} ${owner.id} was not paid here but the PSP reports its Pix sent back`,
      'SentPixConflict',
    );
  return { outcome: 'RETURN_CREDITED', credited: await creditReturns(deps, owner, returns) };
}

/** A refund to a payer's key: its workflow settles it; a return is alerted for a person. */
async function followRefund(
  deps: SentPixDeps,
  reference: string,
): Promise<{ outcome: SentPixOutcome; credited: number }> {
  const refund = await refundStore.findRefund(reference);
  if (!refund?.destination) return { outcome: 'NOT_OURS', credited: 0 };
  const known = await deps.transfers.lookup({ reference, amountCents: refund.amountCents });
  if (known?.kind === 'COMPLETED' && (known.transfer.returns?.length ?? 0) > 0) {
    deps.logger.error({ refundId: reference }, 'ALERT: a Pix sent for a refund came back; credit it by hand');
    return { outcome: 'RETURN_NEEDS_A_PERSON', credited: 0 };
  }
  return { outcome: known ? 'LEFT_TO_ITS_WORKFLOW' : 'NO_RECORD', credited: 0 };
}

async function repairIfStopped(deps: SentPixDeps, owner: SendOwner): Promise<SentPixOutcome> {
  const target =
    owner.type === 'withdrawal'
      ? { kind: 'withdrawal' as const, id: owner.id }
      : { kind: 'payout-batch' as const, id: owner.batchId };
  try {
    await reconcileStopped(deps.repair, Context.current().client, target);
    return 'REPAIRED';
  } catch (err) {
    if (err instanceof ApplicationFailure && err.type === 'WorkflowStillRunning') return 'LEFT_TO_ITS_WORKFLOW';
    throw err;
  }
}
