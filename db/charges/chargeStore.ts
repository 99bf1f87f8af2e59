/**
 * The charges table (and charge_splits, charge_tombstones, written with it): its one writer and
 * the way to read it.
 */
import { Op, QueryTypes, type Sequelize, type Transaction, type WhereOptions } from 'sequelize';
import { Charge } from './charge';
import { ChargeSplit } from './chargeSplit';

export function findCharge(id: string, transaction?: Transaction): Promise<Charge | null> {
  return Charge.findByPk(id, { transaction });
}

/** The charge's splits, in the order they were asked for. */
export function splitsOf(chargeId: string, transaction?: Transaction): Promise<ChargeSplit[]> {
  return ChargeSplit.findAll({ where: { chargeId }, order: [['position', 'ASC']], transaction });
}

/** The charge the provider knows by this id (its charge id, or the boleto's). */
export function findChargeByProviderId(providerChargeId: string): Promise<Charge | null> {
  return Charge.findOne({ where: { providerChargeId } });
}

/** The charge as stored now (after a workflow may have changed it). */
export async function reload(charge: Charge): Promise<Charge> {
  return charge.reload();
}

export interface ChargeFilter {
  merchantId: string;
  status?: string;
  method?: string;
  externalRef?: string;
  createdFrom?: string;
  createdTo?: string;
  limit: number;
  offset: number;
}

/** A merchant's charges, newest first, one page, with the total. */
export function listCharges(f: ChargeFilter) {
  const created: Record<symbol, Date> = {};
  if (f.createdFrom) created[Op.gte] = new Date(f.createdFrom);
  if (f.createdTo) created[Op.lte] = new Date(f.createdTo);
  const where: WhereOptions<Charge> = {
    merchantId: f.merchantId,
    ...(f.status ? { status: f.status } : {}),
    ...(f.method ? { method: f.method } : {}),
    ...(f.externalRef ? { externalRef: f.externalRef } : {}),
    ...(f.createdFrom || f.createdTo ? { createdAt: created } : {}),
  };
  return Charge.findAndCountAll({
    where,
    order: [
      ['createdAt', 'DESC'],
      ['id', 'DESC'],
    ],
    limit: f.limit,
    offset: f.offset,
  });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A merchant's charge by any id the merchant may hold for it: our id, its externalRef, the
 * provider's charge id (also its providerTransactionId: the provider gives one id for both), the
 * Pix txid or the endToEndId of the payment. Newest match wins (an externalRef may repeat).
 * Another merchant's charge is never found. Used by GET /sellers/pix/{id} and the receipt routes.
 */
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

/** The charge paid by the Pix with this endToEndId (id and merchant only), or null. */
export async function chargeOfEndToEndId(
  sequelize: Sequelize,
  endToEndId: string,
): Promise<{ id: string; merchantId: string } | null> {
  const [charge] = await sequelize.query<{ id: string; merchant_id: string }>(
    `SELECT id, merchant_id FROM charges WHERE end_to_end_id = :e2e LIMIT 1`,
    {
      replacements: { e2e: endToEndId },
      type: QueryTypes.SELECT,
    },
  );
  return charge ? { id: charge.id, merchantId: charge.merchant_id } : null;
}

/** Every charge of the platform counted by status and method (metrics: no merchant ids). */
export async function countByStatusAndMethod(
  sequelize: Sequelize,
): Promise<{ status: string; method: string; count: number }[]> {
  const rows = await sequelize.query<{ status: string; method: string; n: string }>(
    'SELECT status, method, count(*) AS n FROM charges GROUP BY status, method',
    { type: QueryTypes.SELECT },
  );
  return rows.map((r) => ({ status: r.status, method: r.method, count: Number(r.n) }));
}
