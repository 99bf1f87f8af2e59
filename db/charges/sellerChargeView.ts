/** Loads a charge with its splits and owner, presented as the seller Pix charge. */
import type { Transaction } from 'sequelize';
import type { Charge } from './charge';
import { splitsOf } from './chargeStore';
import { findMerchant } from '../identity/merchantStore';
import type { Merchant } from '../identity/merchant';
import { findChargeWebhook } from '../events/webhookEndpointStore';
import { presentSellerCharge } from '../../core/charges/presentSellerCharge';

/**
 * Parts of the presentation the caller already holds, so they are not read again: the splits and
 * the webhook it has just written (null: it has none), the owner it has just read. Each one left
 * out is read.
 */
export interface KnownChargeParts {
  splits?: { id: string; merchantId: string; amountCents: number; percentage: number | null }[];
  webhook?: { id: string; url: string; events: string[] } | null;
  merchant?: Merchant;
}

/**
 * `platformInstitution`: config.platformInstitutionName (PLATFORM_INSTITUTION_NAME), where the merchant's account is held.
 * `known`: what the caller already holds (KnownChargeParts).
 */
export async function presentChargeRow(
  charge: Charge,
  platformInstitution: string,
  transaction?: Transaction,
  known: KnownChargeParts = {},
): Promise<Record<string, unknown>> {
  // One after another: inside a transaction they share one connection, and concurrent queries on
  // one pg client are deprecated (pg 9 refuses them).
  const splits = known.splits ?? (await splitsOf(charge.id, transaction));
  const merchant =
    known.merchant?.id === charge.merchantId ? known.merchant : await findMerchant(charge.merchantId, transaction);
  const webhook = known.webhook !== undefined ? known.webhook : await findChargeWebhook(charge.id, transaction);
  if (!merchant) throw new Error(`merchant ${charge.merchantId} of charge ${charge.id} is missing`);
  return presentSellerCharge({
    charge: charge.get({ plain: true }) as never,
    splits: splits.map((s) => ({
      id: s.id,
      merchantId: s.merchantId,
      amountCents: s.amountCents,
      percentage: s.percentage,
    })),
    merchant,
    // The secret is shown once, in the 201 of the create (see SellerPixService).
    webhook: webhook ? { id: webhook.id, url: webhook.url, events: webhook.events, secret: null } : null,
    platformInstitution,
  });
}
