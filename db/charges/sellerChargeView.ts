/** Loads a charge with its splits and owner, presented as the seller Pix charge. */
import type { Transaction } from 'sequelize';
import { Charge, ChargeSplit, Merchant, WebhookEndpoint } from '../models';
import { presentSellerCharge } from '../../core/charges/presentSellerCharge';

export const PLATFORM_INSTITUTION = process.env.PLATFORM_INSTITUTION_NAME ?? 'Gateway Pagamentos IP';

export async function presentChargeRow(charge: Charge, transaction?: Transaction): Promise<Record<string, unknown>> {
  // One after another: inside a transaction they share one connection, and concurrent queries on
  // one pg client are deprecated (pg 9 refuses them).
  const splits = await ChargeSplit.findAll({
    where: { chargeId: charge.id },
    order: [['position', 'ASC']],
    transaction,
  });
  const merchant = await Merchant.findByPk(charge.merchantId, { transaction });
  const webhook = await WebhookEndpoint.findOne({ where: { chargeId: charge.id }, transaction });
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
    platformInstitution: PLATFORM_INSTITUTION,
  });
}
