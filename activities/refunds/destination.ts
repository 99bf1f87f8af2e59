import { ApplicationFailure } from '@temporalio/activity';
import { ProviderError, type PixKeyOwner } from '../../core/provider';
import { mayBePayersKey, ownedByPayer } from '../../core/refunds/destination';
import { chargeStore } from '../../db/charges';
import type { RefundDestination } from '../../db/refunds/refund';
import { RefundFailureTypes, type RefundInput } from '../../workflows/refunds/types';
import { TransferFailureTypes } from '../transfers/transferPath';
import type { RefundDeps } from './deps';
import { refusal } from './refusal';

/**
 * The destination of a boleto's refund as stored: the payer's document (the transfer names
 * it, so the provider checks it too) and the directory's answer for the key; or a refusal
 * when the directory does not know the key or its owner is not the boleto's payer.
 */
export async function payersKey(deps: RefundDeps, input: RefundInput): Promise<RefundDestination> {
  const { provider } = deps;
  const destination = input.destination!;
  const charge = await chargeStore.findCharge(input.chargeId);
  const payerDocument = charge?.payerDetails?.taxId;
  if (!payerDocument)
    throw refusal('the charge has no payer to refund to', RefundFailureTypes.notRefundable, {
      status: charge?.status ?? null,
    });
  const notPayer = () =>
    refusal("the Pix key does not belong to the boleto's payer", RefundFailureTypes.destinationNotPayer);
  if (!mayBePayersKey(destination, payerDocument)) throw notPayer();
  // A PSP without a directory look-up (Efí): the send names the payer's document and the PSP
  // refuses a key of anyone else (RECIPIENT_DOCUMENT_MISMATCH, the reservation released).
  if (!provider.lookUpPixKey) return { ...destination, document: payerDocument };
  let owner: PixKeyOwner | null;
  try {
    owner = await provider.lookUpPixKey(destination.pixKey);
  } catch (err) {
    // Our code only: the provider's text may name hosts or keys.
    if (err instanceof ProviderError)
      throw ApplicationFailure.retryable(
        `the payment institution did not answer the key look-up (${err.code})`,
        TransferFailureTypes.unavailable,
      );
    throw err;
  }
  if (!owner) throw refusal('the Pix key is not in the Pix directory (DICT)', RefundFailureTypes.destinationNotFound);
  if (!ownedByPayer(owner, payerDocument)) throw notPayer();
  return {
    ...destination,
    document: payerDocument,
    directory: { owner: owner.owner, bank: owner.bank, checkedAt: new Date().toISOString() },
  };
}
