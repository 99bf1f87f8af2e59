/**
 * The one transfer path: every movement of money out of a merchant's balance (payout item,
 * withdrawal, refund; later settlements, MED) sends its transfer through here — a transfer to
 * a Pix key, or a devolução of a received payment (`PaymentReturnRequest`). The flow around
 * it is always: reserve → `send` (business id as idempotency key) → settle on a confirmed
 * transfer, or release on an explicit refusal — and when the provider's answer leaves the
 * outcome unknown, ask the provider (`lookup`), and release only if it still has no record after
 * a grace period (the caller's durable timer).
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
import { createLogger } from '../../core/logger';

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

const logger = createLogger('transfers');

export function createTransferPath(provider: PixProvider) {
  /** Sends the transfer; `retry` when an earlier attempt for this reference may have reached the provider. */
  async function send(req: TransferRequest | PaymentReturnRequest, opts: { retry: boolean }): Promise<TransferAnswer> {
    if (opts.retry) {
      const known = await lookup(req);
      if (known) return known;
    }
    let transfer: ProviderTransfer;
    try {
      transfer = 'endToEndId' in req ? await provider.returnPayment(req) : await provider.transfer(req);
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      if (err.transient) throw unavailable(err);
      // The call was refused, but an earlier call (or this one) may have made the transfer.
      return (await lookup(req)) ?? { kind: 'NO_RECORD', code: err.code };
    }
    return answerOf(transfer, req);
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
      transfer = req.endToEndId
        ? await provider.getPaymentReturn({ reference: req.reference, endToEndId: req.endToEndId })
        : await provider.getTransferByReference(req.reference);
    } catch (err) {
      if (err instanceof ProviderError) throw unavailable(err);
      throw err;
    }
    return transfer ? answerOf(transfer, req) : null;
  }

  return { send, lookup };
}

export type TransferPath = ReturnType<typeof createTransferPath>;

function answerOf(
  transfer: ProviderTransfer,
  sent: Pick<TransferRequest, 'reference' | 'amountCents'>,
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
