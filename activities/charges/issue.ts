/** Issuing a Pix charge: at the provider, then recorded; or given up, leaving a tombstone. */
import { ApplicationFailure } from '@temporalio/activity';
import type { ProviderCharge } from '../../core/provider';
import { qrCodePngBase64 } from '../../core/pix/qrPng';
import { chargeStore } from '../../db/charges';
import { merchantStore, type Merchant } from '../../db/identity';
import { splitSendStore } from '../../db/splitSends';
import { ChargeFailureTypes, type ChargeLifecycleInput, type IssuedCharge } from '../../workflows/charges/types';
import type { ChargeDeps } from './deps';
import { toActivityFailure } from './providerErrors';
import { pspSplitPlan } from './pspSplit';
import { recordCharge } from './record';

/**
 * The provider's charge without its image, and the account it was issued at (the merchant's own
 * connection, or null: the platform's), which the charge row keeps for every later call.
 */
export type IssuedProviderCharge = Omit<ProviderCharge, 'qrCodeBase64'> & { pspConnectionId?: string | null };

/**
 * issuePixAtProvider then recordIssuedCharge in one step (one local activity, one workflow
 * activation fewer per create). Both halves are idempotent, so an attempt that failed in the
 * record half asks the provider again and gets the same charge. The merchant is read once: its
 * name goes into the BR Code, the row into charge.created.
 */
export async function issueAndRecordPix(deps: ChargeDeps, input: ChargeLifecycleInput): Promise<IssuedCharge> {
  const merchant = await merchantStore.findMerchant(input.merchantId);
  const providerCharge = await issueAtProvider(deps, input, merchant?.name ?? null);
  return recordIssued(deps, input, providerCharge, merchant ?? undefined);
}

/**
 * Returns the provider's charge without its QR image: the PNG is rendered again from the BR
 * Code when the charge is recorded, so kilobytes of base64 never enter workflow history.
 */
export async function issueAtProvider(
  deps: Pick<ChargeDeps, 'sequelize' | 'accounts' | 'providerCallbackUrl'>,
  input: ChargeLifecycleInput,
  merchantName: string | null,
): Promise<IssuedProviderCharge> {
  try {
    const account = await deps.accounts.forMerchant(input.merchantId);
    const split = await pspSplitPlan(deps, input, account);
    // The sends are written first: a configuration that leaves a share in the account always has its send owed.
    if (split) await splitSendStore.planSends(deps.sequelize, input.chargeId, split.sends);
    if (split?.body) await split.splits.putSplitConfig(split.id, split.body);
    const charge = await account.provider.issueCharge({
      reference: input.chargeId,
      amountCents: input.amountCents,
      description: input.description,
      expiresAt: input.expiresAt,
      callbackUrl: deps.providerCallbackUrl,
      merchantName,
    });
    if (!charge.copyPaste || !charge.txid) {
      throw ApplicationFailure.nonRetryable(
        'the provider answered without a Pix payload',
        ChargeFailureTypes.pixNotIssued,
      );
    }
    if (split?.body) await split.splits.linkCob(charge.txid, split.id);
    const { qrCodeBase64: _image, ...withoutImage } = charge;
    return { ...withoutImage, pspConnectionId: account.connectionId };
  } catch (err) {
    throw toActivityFailure(err);
  }
}

export async function recordIssued(
  deps: ChargeDeps,
  input: ChargeLifecycleInput,
  providerCharge: IssuedProviderCharge,
  merchant?: Merchant,
): Promise<IssuedCharge> {
  const pix = {
    qrCode: await qrCodePngBase64(providerCharge.copyPaste),
    copyPaste: providerCharge.copyPaste,
    expiresAt: input.expiresAt,
  };
  await recordCharge(
    deps,
    input,
    {
      pix,
      providerChargeId: providerCharge.id,
      pixTxid: providerCharge.txid,
      pspConnectionId: providerCharge.pspConnectionId ?? null,
    },
    merchant,
  );
  return issuedFrom(input.chargeId, providerCharge.id, providerCharge.txid, pix.copyPaste, input.expiresAt);
}

/**
 * The workflow gave up issuing. Under the same lock the record step takes: if a record attempt
 * did commit, answer with that charge (it exists, so the client must hear so); otherwise leave
 * a tombstone, so an attempt still running somewhere can never commit it later.
 */
export async function abandonChargeIssue(
  deps: Pick<ChargeDeps, 'sequelize'>,
  args: { chargeId: string; merchantId: string; expiresAt: string; reason: string },
): Promise<IssuedCharge | null> {
  const { sequelize } = deps;
  return sequelize.transaction(async (transaction) => {
    await chargeStore.lockIssue(sequelize, args.chargeId, transaction);
    const charge = await chargeStore.findCharge(args.chargeId, transaction);
    if (charge) {
      const copyPaste = (charge.pix as { copyPaste: string } | null)?.copyPaste ?? '';
      return issuedFrom(
        charge.id,
        charge.providerChargeId as string,
        charge.pixTxid as string,
        copyPaste,
        args.expiresAt,
      );
    }
    await chargeStore.addTombstone(sequelize, args, transaction);
    return null;
  });
}

function issuedFrom(
  chargeId: string,
  providerChargeId: string,
  pixTxid: string,
  copyPaste: string,
  expiresAt: string,
): IssuedCharge {
  return { chargeId, providerChargeId, pixTxid, copyPaste, expiresAt };
}
