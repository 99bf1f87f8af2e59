/**
 * A connected merchant's charge divided by its PSP (issue 37, item 3): before the cob is created,
 * the charge's Efí split configuration (core/connections/efiSplitConfig.ts: the platform's fee
 * to the platform's account, each split recipient's share to its own account at the same PSP, the
 * rest kept) is written under an id derived from the charge; once the cob exists it is linked to
 * it. Both calls are idempotent, so an issue retried at any point writes and links the same
 * configuration.
 *
 * A recipient whose own active connection is at another PSP (another API origin) is no repasse:
 * its share stays in the merchant's account (minhaParte) and is sent from there by Pix after
 * settlement, with the merchant's connection, to the recipient's connection's key
 * (activities/splitSends/). The send is decided here, with the configuration, and written
 * before the configuration (split_sends AWAITING_PAYMENT, with the recipient's key as it is
 * now), so what the PSP was told to leave in the account is what settlement owes. A recipient
 * with no connection at all refuses the charge before anything is created (SPLIT_NOT_POSSIBLE):
 * its money would have to go through the platform's account (docs/account-models.md).
 *
 * The ledger's chargePaidEntry records the same numbers, so the PSP's division and our mirror of
 * it agree to the cent.
 */
import { ApplicationFailure } from '@temporalio/activity';
import {
  accountIdentity,
  efiSplitConfigFor,
  splitConfigIdFor,
  splitSendsFor,
  SplitConfigError,
  SplitConfigErrorCodes,
  type EfiSplitConfigBody,
  type PspAccountIdentity,
  type SplitAccounts,
} from '../../core/connections/efiSplitConfig';
import { pixKeyTypeOf } from '../../core/pixKeys';
import type { PspAccount, PspSplits } from '../../core/provider';
import { splitSendIdFor } from '../../core/splitSends/splitSendId';
import { pspConnectionStore, type SplitRecipientRow } from '../../db/connections';
import type { NewSplitSend } from '../../db/splitSends';
import { ChargeFailureTypes, type ChargeLifecycleInput } from '../../workflows/charges/types';
import type { ChargeDeps } from './deps';

export interface PspSplitPlan {
  splits: PspSplits;
  id: string;
  /** Null when the PSP passes nothing on (only sends after settlement): no configuration to write. */
  body: EfiSplitConfigBody | null;
  /** Shares sent from the merchant's account after settlement, to write before the configuration. */
  sends: NewSplitSend[];
}

/** The configuration to write for this charge on this account; null on the platform's account or with nothing to pass on. */
export async function pspSplitPlan(
  deps: Pick<ChargeDeps, 'sequelize'>,
  input: Pick<ChargeLifecycleInput, 'chargeId' | 'merchantId' | 'amountCents' | 'feeCents' | 'splits'>,
  account: PspAccount,
): Promise<PspSplitPlan | null> {
  const splits = account.splits;
  if (!splits) return null;
  const recipients = await pspConnectionStore.splitRecipients(deps.sequelize, [
    ...new Set(input.splits.map((s) => s.merchantId)),
  ]);
  const atThisPsp = new Map<string, PspAccountIdentity | null>(
    recipients.map((r) => [
      r.merchant_id,
      new URL(r.api_base_url).origin === splits.pspOrigin ? accountIdentity(r.account_number, r.document) : null,
    ]),
  );
  const elsewhere = new Map(
    recipients.filter((r) => new URL(r.api_base_url).origin !== splits.pspOrigin).map((r) => [r.merchant_id, r]),
  );
  const charge = {
    ...input,
    splits: input.splits.map((s) => ({ merchantId: s.merchantId, amountCents: s.amountCents })),
  };
  const accounts: SplitAccounts = {
    platform: splits.platform ?? { conta: '', cnpj: '' },
    recipientAccount: (merchantId) => atThisPsp.get(merchantId) ?? null,
    sentAfterSettlement: (merchantId) => elsewhere.has(merchantId),
  };
  try {
    const body = efiSplitConfigFor(charge, accounts);
    const sends = splitSendsFor(charge, accounts).map((share) =>
      sendOf(input, account, elsewhere.get(share.merchantId) as SplitRecipientRow, share.amountCents),
    );
    if (!body && sends.length === 0) return null;
    return { splits, id: splitConfigIdFor(input.chargeId), body, sends };
  } catch (err) {
    if (err instanceof SplitConfigError)
      throw ApplicationFailure.nonRetryable(`${err.code}: ${err.message}`, ChargeFailureTypes.splitNotPossible);
    throw err;
  }
}

/** The send of `recipient`'s share from the charge's account to its own connection's key. */
function sendOf(
  input: Pick<ChargeLifecycleInput, 'chargeId' | 'merchantId'>,
  account: PspAccount,
  recipient: SplitRecipientRow,
  amountCents: number,
): NewSplitSend {
  const pixKeyType = pixKeyTypeOf(recipient.pix_key);
  if (!pixKeyType)
    throw new SplitConfigError(
      SplitConfigErrorCodes.recipientNotAtPsp,
      `recipient ${recipient.merchant_id}'s connection names no Pix key a send can reach`,
      recipient.merchant_id,
    );
  return {
    id: splitSendIdFor(input.chargeId, recipient.merchant_id),
    chargeId: input.chargeId,
    merchantId: input.merchantId,
    recipientMerchantId: recipient.merchant_id,
    pspConnectionId: account.connectionId as string,
    recipientConnectionId: recipient.connection_id,
    pixKey: recipient.pix_key,
    pixKeyType,
    recipientName: recipient.name,
    recipientDocument: recipient.document,
    amountCents,
  };
}
