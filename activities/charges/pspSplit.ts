/**
 * A connected merchant's charge divided by its PSP (issue 37, item 3): before the cob is created,
 * the charge's Efí split configuration (core/connections/efiSplitConfig.ts: the platform's fee
 * to the platform's account, each split recipient's share to its own account at the same PSP, the
 * rest kept) is written under an id derived from the charge; once the cob exists it is linked to
 * it. Both calls are idempotent, so an issue retried at any point writes and links the same
 * configuration. A recipient with no account at that PSP refuses the charge before anything is
 * created (SPLIT_NOT_POSSIBLE): paying it by a send from the merchant's account after settlement
 * is not built yet (docs/account-models.md).
 *
 * The ledger's chargePaidEntry records the same numbers, so the PSP's division and our mirror of
 * it agree to the cent.
 */
import { ApplicationFailure } from '@temporalio/activity';
import {
  accountIdentity,
  efiSplitConfigFor,
  splitConfigIdFor,
  SplitConfigError,
  type EfiSplitConfigBody,
  type PspAccountIdentity,
} from '../../core/connections/efiSplitConfig';
import type { PspAccount, PspSplits } from '../../core/provider';
import { pspConnectionStore } from '../../db/connections';
import { ChargeFailureTypes, type ChargeLifecycleInput } from '../../workflows/charges/types';
import type { ChargeDeps } from './deps';

export interface PspSplitPlan {
  splits: PspSplits;
  id: string;
  body: EfiSplitConfigBody;
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
  try {
    const body = efiSplitConfigFor(
      { ...input, splits: input.splits.map((s) => ({ merchantId: s.merchantId, amountCents: s.amountCents })) },
      {
        platform: splits.platform ?? { conta: '', cnpj: '' },
        recipientAccount: (merchantId) => atThisPsp.get(merchantId) ?? null,
      },
    );
    return body ? { splits, id: splitConfigIdFor(input.chargeId), body } : null;
  } catch (err) {
    if (err instanceof SplitConfigError)
      throw ApplicationFailure.nonRetryable(`${err.code}: ${err.message}`, ChargeFailureTypes.splitNotPossible);
    throw err;
  }
}
