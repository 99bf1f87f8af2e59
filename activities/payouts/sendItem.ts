import type { PixKeyType } from '../../core/provider';
import { sendTransfer, type TransferDecision, type Unconfirmed } from '../transfers/transferSteps';
import type { ClaimedItem } from './claimItems';
import type { PayoutDeps } from './deps';

/** Sends one claimed item; a later attempt may follow one whose answer was lost: the provider's record comes first. */
export function sendItem(
  deps: Pick<PayoutDeps, 'transfers'>,
  item: ClaimedItem,
): Promise<TransferDecision | Unconfirmed> {
  return sendTransfer(
    deps.transfers,
    {
      reference: item.id,
      amountCents: item.amountCents,
      pixKey: item.pixKey,
      pixKeyType: item.pixKeyType as PixKeyType,
      recipientName: item.recipientName,
      recipientDocument: item.recipientDocument,
    },
    { retry: item.attempts > 1 },
  );
}
