/**
 * Refund activities: the refund's reserve, send, settle and release on the one outbound transfer
 * path (activities/transfers/transferSteps.ts states its rules). What a refund adds: its shares
 * are taken back from everyone the payment credited (core/refunds/shares.ts), under the charge's
 * lock so concurrent refunds never pass the paid amount; a Pix payment is refunded by a devolução
 * of it, a boleto paid by barcode by a transfer to a Pix key of its payer (the directory is asked
 * first); a refund whose merchant was frozen or deactivated after the reservation is parked, not
 * sent; a MED devolução is neither refused nor parked for the merchant's state, and its blocked
 * money is unblocked in the transaction that reserves it.
 */
import { refundDeps, type RefundActivityDeps } from './deps';
import { abandonRefundReserve, reserveRefund } from './reserve';
import { resolveRefund } from './resolve';
import { sendRefund } from './send';

export function createRefundActivities(activityDeps: RefundActivityDeps) {
  const deps = refundDeps(activityDeps);
  return {
    reserveRefund: (input: Parameters<typeof reserveRefund>[1]) => reserveRefund(deps, input),
    abandonRefundReserve,
    sendRefund: (args: Parameters<typeof sendRefund>[1]) => sendRefund(deps, args),
    resolveRefund: (args: Parameters<typeof resolveRefund>[1]) => resolveRefund(deps, args),
  };
}

export type RefundActivities = ReturnType<typeof createRefundActivities>;
