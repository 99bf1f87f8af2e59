/**
 * The one transfer path: every movement of money out of a merchant's balance (payout item,
 * withdrawal and the settlements it carries, refund and the MED devoluções it carries) sends its
 * transfer through here — a transfer to a Pix key, or a devolução of a received payment
 * (`PaymentReturnRequest`) — and asks the provider about it (`lookup`). The choreography around
 * it is workflows/transfers/outboundTransfer.ts (the workflow half) and transferSteps.ts (the
 * reserve, settle and release); this module is the provider's side only.
 *
 * Rules, each one a way money was lost elsewhere:
 * - Only a refusal carried on a transfer object (status FAILED with a failure code) releases.
 * - Any other non-transient error (401, 403, 409, a 400 on a repeated call…) means "outcome
 *   unknown": the provider's record for our reference decides, never the error.
 * - A retry after an attempt whose answer may have been lost asks the provider first.
 * - A transfer whose reference or amount differs from what we sent is never settled: stop, alert.
 * - Merchants never see the provider's or the network's own text (it may name the supplier,
 *   hosts or keys): errors carry our codes only.
 */
import { ApplicationFailure } from '@temporalio/activity';
import {
  ProviderError,
  type PaymentReturnRequest,
  type PixProvider,
  type ProviderTransfer,
  type TransferRequest,
} from '../../core/provider';
import type { Logger } from 'pino';

export type TransferAnswer =
  /** The provider made the transfer and it completed: settle. */
  | { kind: 'COMPLETED'; transfer: ProviderTransfer }
  /** The provider made the transfer and refused it for a business reason: release. */
  | { kind: 'REFUSED'; transfer: ProviderTransfer }
  /** The provider refused the call and has no record of our reference: release only after the grace period. */
  | { kind: 'NO_RECORD'; code: string };

/** Failure types the callers' retry policies must treat as final. */
export const TransferFailureTypes = {
  unavailable: 'ProviderUnavailable',
  mismatch: 'TransferMismatch',
} as const;

/**
 * The account a reference's transfer goes from and is asked of (transferAccounts.ts: the
 * merchant's own connection or the platform's), resolved on every call: a send and every later
 * look-up of it reach the same account.
 */
export type ProviderOfTransfer = (reference: string) => Promise<PixProvider>;

/** `logger`: where a transfer that is not the one we sent is reported (the composition root's, through deps). */
export function createTransferPath(providerOf: ProviderOfTransfer, logger: Logger) {
  /** Sends the transfer; `retry` when an earlier attempt for this reference may have reached the provider. */
  async function send(req: TransferRequest | PaymentReturnRequest, opts: { retry: boolean }): Promise<TransferAnswer> {
    if (opts.retry) {
      const known = await lookup(req);
      if (known) return known;
    }
    let transfer: ProviderTransfer;
    try {
      const provider = await providerOf(req.reference);
      transfer = 'endToEndId' in req ? await provider.returnPayment(req) : await provider.transfer(req);
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      if (err.transient) throw unavailable(err);
      // The call was refused, but an earlier call (or this one) may have made the transfer.
      return (await lookup(req)) ?? { kind: 'NO_RECORD', code: err.code };
    }
    return answerOf(transfer, req, logger);
  }

  /**
   * The provider's record for our reference, or null when it has none. Retried until it answers.
   * A devolução (the payment's endToEndId given) is looked up as one: API Pix finds it by payment.
   */
  async function lookup(
    req: Pick<TransferRequest, 'reference' | 'amountCents'> & { endToEndId?: string },
  ): Promise<TransferAnswer | null> {
    let transfer: ProviderTransfer | null;
    try {
      const provider = await providerOf(req.reference);
      transfer = req.endToEndId
        ? await provider.getPaymentReturn({ reference: req.reference, endToEndId: req.endToEndId })
        : await provider.getTransferByReference(req.reference);
    } catch (err) {
      if (err instanceof ProviderError) throw unavailable(err);
      throw err;
    }
    return transfer ? answerOf(transfer, req, logger) : null;
  }

  return { send, lookup };
}

export type TransferPath = ReturnType<typeof createTransferPath>;

function answerOf(
  transfer: ProviderTransfer,
  sent: Pick<TransferRequest, 'reference' | 'amountCents'>,
  logger: Logger,
): TransferAnswer {
  if (transfer.reference !== sent.reference || transfer.amountCents !== sent.amountCents) {
    logger.error(
      {
        reference: sent.reference,
        amountCents: sent.amountCents,
        providerTransferId: transfer.id,
        providerReference: transfer.reference,
        providerAmountCents: transfer.amountCents,
      },
      'ALERT: the provider answered with a transfer that is not the one we sent; not settled',
    );
    throw ApplicationFailure.nonRetryable(
      `provider transfer ${transfer.id} does not match reference ${sent.reference} (reference or amount differ)`,
      TransferFailureTypes.mismatch,
    );
  }
  return transfer.status === 'COMPLETED' ? { kind: 'COMPLETED', transfer } : { kind: 'REFUSED', transfer };
}

/** Retryable, with our code only: the provider's text stays in no failure a merchant may read. */
function unavailable(err: ProviderError): ApplicationFailure {
  return ApplicationFailure.retryable(
    `the payment institution did not answer (${err.code})`,
    TransferFailureTypes.unavailable,
  );
}
