import { ApplicationFailure, Context } from '@temporalio/activity';
import { moneyOutRefusal } from '../../core/identity/moneyOut';
import { TRANSFER_NOT_ACCEPTED } from '../../core/transfers/failures';
import { chargeStore } from '../../db/charges';
import { merchantStore } from '../../db/identity';
import { refundStore, type Refund } from '../../db/refunds';
import { decide, sendTransfer } from '../transfers/transferSteps';
import type { RefundDeps } from './deps';
import { settleOrReleaseRefund, type RefundStepOutcome } from './settle';

/**
 * Sends the devolução or the transfer (refund id as key) and settles or releases it at once
 * when the provider's answer is known; UNCONFIRMED when it has no record (wait, then
 * resolveRefund). PARKED when the merchant was frozen or deactivated after the reservation:
 * nothing is sent (as payout items), unless a MED devolução.
 */
export async function sendRefund(deps: RefundDeps, args: { refundId: string }): Promise<RefundStepOutcome> {
  const { transfers } = deps;
  const refund = await refundStore.findRefund(args.refundId);
  if (!refund || refund.status !== 'PROCESSING') return 'SKIPPED';
  // A later attempt may follow one whose answer was lost: the provider's record comes first.
  const retry = Context.current().info.attempt > 1;
  if (!refund.medInfractionId && moneyOutRefusal(await merchantStore.findMerchant(refund.merchantId))) {
    const known = retry ? await transfers.lookup(await lookupOf(refund)) : null;
    return known ? settleOrReleaseRefund(deps, refund.id, decide(known)) : 'PARKED';
  }
  const charge = await chargeStore.findCharge(refund.chargeId);
  const to = refund.destination;
  if (!to && !charge?.endToEndId)
    throw ApplicationFailure.nonRetryable(`charge ${refund.chargeId} has no endToEndId`, 'RefundStateConflict');
  const sent = await sendTransfer(
    transfers,
    to
      ? {
          reference: refund.id,
          amountCents: refund.amountCents,
          pixKey: to.pixKey,
          pixKeyType: to.pixKeyType,
          recipientName: to.name,
          recipientDocument: to.document,
        }
      : { reference: refund.id, amountCents: refund.amountCents, endToEndId: charge!.endToEndId! },
    { retry },
  );
  if (sent.kind === 'UNCONFIRMED') {
    await refundStore.updateRefund(refund, { failureCode: sent.code, failureReason: TRANSFER_NOT_ACCEPTED.reason });
    return 'UNCONFIRMED';
  }
  return settleOrReleaseRefund(deps, refund.id, sent);
}

/** What the provider knows the refund's money out by: a devolução by its payment too, a transfer to a key by our reference. */
export async function lookupOf(
  refund: Refund,
): Promise<{ reference: string; amountCents: number; endToEndId?: string }> {
  const endToEndId = refund.destination ? null : (await chargeStore.chargeEndToEndIdRow(refund.chargeId))?.endToEndId;
  return { reference: refund.id, amountCents: refund.amountCents, ...(endToEndId ? { endToEndId } : {}) };
}
