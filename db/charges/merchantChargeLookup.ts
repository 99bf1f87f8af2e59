/**
 * A merchant's charge by any id the merchant may hold for it: our id, its externalRef, the
 * provider's charge id (also its providerTransactionId: the provider gives one id for both), the
 * Pix txid or the endToEndId of the payment. Newest match wins (an externalRef may repeat).
 * Another merchant's charge is never found. Used by GET /sellers/pix/{id} and the receipt routes.
 */
import { Op } from 'sequelize';
import { Charge } from '../models';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findMerchantCharge(merchantId: string, lookup: string): Promise<Charge | null> {
  const candidates: Record<string, string>[] = [
    { externalRef: lookup },
    { providerChargeId: lookup },
    { pixTxid: lookup },
    { endToEndId: lookup },
  ];
  if (UUID.test(lookup)) candidates.unshift({ id: lookup });
  return Charge.findOne({ where: { merchantId, [Op.or]: candidates }, order: [['createdAt', 'DESC']] });
}
