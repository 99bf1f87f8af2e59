/**
 * The charges table (and charge_splits, charge_tombstones, written with it): its one writer and
 * the way to read it.
 */
import crypto from 'node:crypto';
import { insertOnce } from '../insertOnce';
import {
  Op,
  QueryTypes,
  type CreationAttributes,
  type InferAttributes,
  type Sequelize,
  type Transaction,
  type WhereOptions,
} from 'sequelize';
import { Charge } from './charge';
import { ChargeSplit } from './chargeSplit';

export function findCharge(id: string, transaction?: Transaction): Promise<Charge | null> {
  return Charge.findByPk(id, { transaction });
}

/** The charge's merchant alone (merchantId is the only column read), or null when there is no such charge. */
export function chargeOwner(id: string, transaction?: Transaction): Promise<Charge | null> {
  return Charge.findByPk(id, { attributes: ['merchantId'], transaction });
}

/** The charge's endToEndId alone (the only column read), or null when there is no such charge. */
export function chargeEndToEndIdRow(id: string): Promise<Charge | null> {
  return Charge.findByPk(id, { attributes: ['endToEndId'] });
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

/** The charge paid by the Pix with this endToEndId (its id, merchant, amount and the PSP account it was issued at), or null. */
export async function chargeOfEndToEndId(
  sequelize: Sequelize,
  endToEndId: string,
): Promise<{ id: string; merchantId: string; amountCents: number; pspConnectionId: string | null } | null> {
  const [charge] = await sequelize.query<{
    id: string;
    merchant_id: string;
    amount_cents: string | number;
    psp_connection_id: string | null;
  }>(`SELECT id, merchant_id, amount_cents, psp_connection_id FROM charges WHERE end_to_end_id = :e2e LIMIT 1`, {
    replacements: { e2e: endToEndId },
    type: QueryTypes.SELECT,
  });
  return charge
    ? {
        id: charge.id,
        merchantId: charge.merchant_id,
        amountCents: Number(charge.amount_cents),
        pspConnectionId: charge.psp_connection_id,
      }
    : null;
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

// --- writes of the charge's life (the charge activities) ---------------------------------------

/** The charge row under FOR UPDATE: settle and close decide on what no other writer changes meanwhile. */
export function lockCharge(id: string, transaction: Transaction): Promise<Charge | null> {
  return Charge.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
}

/** What markPaid reads with the row it marks PAID: the presentation of charge.paid and the ledger entry. */
export interface PaidChargeRow {
  charge: Charge;
  splits: { id: string; merchantId: string; amountCents: number; percentage: number | null }[];
  owner: { id: string; name: string; email: string; document: string; documentType: string } | null;
  webhook: { id: string; url: string; events: string[] } | null;
}

/**
 * Marks a charge PAID with the provider's record of its payment, unless it already is, in one
 * statement: the UPDATE takes the row lock (a concurrent settle waits for it, then finds PAID and
 * changes nothing) and its RETURNING reads what settling needs next, the splits, the owner and
 * the charge's own webhook (with the lock before, they were four more statements).
 * `paid_after_expiry` is set from the status the row had: any but PENDING is a late payment.
 * null: the charge was already PAID, or there is none (chargeExists says which).
 */
export async function markPaid(
  sequelize: Sequelize,
  chargeId: string,
  payment: { paidAt: Date; endToEndId: string | null; payerSnapshot: Record<string, unknown> | null },
  transaction: Transaction,
): Promise<PaidChargeRow | null> {
  const [row] = await sequelize.query<Record<string, unknown>>(
    `UPDATE charges c
        SET status = 'PAID', paid_at = :paidAt, end_to_end_id = :endToEndId, payer_snapshot = CAST(:payerSnapshot AS jsonb),
            paid_after_expiry = (c.status <> 'PENDING'), updated_at = now()
      WHERE c.id = :chargeId AND c.status <> 'PAID'
      RETURNING c.*,
        (SELECT coalesce(json_agg(json_build_object('id', s.id, 'merchantId', s.merchant_id, 'amountCents', s.amount_cents,
                  'percentage', s.percentage) ORDER BY s.position), '[]'::json)
           FROM charge_splits s WHERE s.charge_id = c.id) AS paid_splits,
        (SELECT json_build_object('id', m.id, 'name', m.name, 'email', m.email, 'document', m.document,
                  'documentType', m.document_type)
           FROM merchants m WHERE m.id = c.merchant_id) AS paid_owner,
        (SELECT json_build_object('id', w.id, 'url', w.url, 'events', w.events)
           FROM webhook_endpoints w WHERE w.charge_id = c.id LIMIT 1) AS paid_webhook`,
    {
      replacements: {
        chargeId,
        paidAt: payment.paidAt,
        endToEndId: payment.endToEndId,
        payerSnapshot: payment.payerSnapshot ? JSON.stringify(payment.payerSnapshot) : null,
      },
      type: QueryTypes.SELECT,
      transaction,
    },
  );
  if (!row) return null;
  const { paid_splits, paid_owner, paid_webhook, ...columns } = row;
  const splits = (paid_splits as PaidChargeRow['splits']).map((s) => ({
    ...s,
    amountCents: Number(s.amountCents),
    percentage: s.percentage === null ? null : Number(s.percentage),
  }));
  return {
    charge: chargeFromColumns(columns),
    splits,
    owner: paid_owner as PaidChargeRow['owner'],
    webhook: paid_webhook as PaidChargeRow['webhook'],
  };
}

/** A Charge built from a row of its columns (a raw statement's RETURNING c.*), as findByPk would. */
function chargeFromColumns(columns: Record<string, unknown>): Charge {
  const values: Record<string, unknown> = {};
  for (const [attribute, definition] of Object.entries(Charge.getAttributes()))
    values[attribute] = columns[definition.field ?? attribute];
  return Charge.build(values as CreationAttributes<Charge>, { isNewRecord: false, raw: true });
}

/** Whether the charge exists (a settle that changed nothing: already PAID, or no such charge). */
export async function chargeExists(chargeId: string, transaction: Transaction): Promise<boolean> {
  return (await Charge.findByPk(chargeId, { attributes: ['id'], transaction })) !== null;
}

/**
 * Serialises the record step and the give-up of one charge's issue: a transaction-scoped
 * advisory lock, so a crash frees it.
 */
export async function lockIssue(sequelize: Sequelize, chargeId: string, transaction: Transaction): Promise<void> {
  await sequelize.query(`SELECT pg_advisory_xact_lock(hashtext(:key))`, {
    replacements: { key: `charge-issue:${chargeId}` },
    transaction,
  });
}

/**
 * Where a charge id lives: its row's account (psp_connection_id, null: the platform's), or, for
 * an issue given up on before the row was written, the tombstone's merchant; null: neither.
 */
export async function chargeAccountOf(
  sequelize: Sequelize,
  chargeId: string,
): Promise<{ issued: true; pspConnectionId: string | null } | { issued: false; merchantId: string } | null> {
  const [row] = await sequelize.query<{ issued: boolean; psp_connection_id: string | null; merchant_id: string }>(
    `SELECT true AS issued, psp_connection_id, merchant_id FROM charges WHERE id = :chargeId
     UNION ALL
     SELECT false, NULL, merchant_id FROM charge_tombstones WHERE charge_id = :chargeId
     LIMIT 1`,
    { replacements: { chargeId }, type: QueryTypes.SELECT },
  );
  if (!row) return null;
  return row.issued
    ? { issued: true, pspConnectionId: row.psp_connection_id }
    : { issued: false, merchantId: row.merchant_id };
}

/** Whether the workflow gave up issuing this charge (a tombstone): it must never be created later. */
export async function isTombstoned(sequelize: Sequelize, chargeId: string, transaction: Transaction): Promise<boolean> {
  const rows = await sequelize.query(`SELECT 1 FROM charge_tombstones WHERE charge_id = :chargeId`, {
    replacements: { chargeId },
    type: QueryTypes.SELECT,
    transaction,
  });
  return rows.length > 0;
}

/** Leaves the tombstone of an issue the workflow gave up on (once). */
export async function addTombstone(
  sequelize: Sequelize,
  tombstone: { chargeId: string; merchantId: string; reason: string },
  transaction: Transaction,
): Promise<void> {
  await sequelize.query(
    `INSERT INTO charge_tombstones (charge_id, merchant_id, reason) VALUES (:chargeId, :merchantId, :reason) ON CONFLICT (charge_id) DO NOTHING`,
    {
      replacements: {
        chargeId: tombstone.chargeId,
        merchantId: tombstone.merchantId,
        reason: tombstone.reason.slice(0, 500),
      },
      transaction,
    },
  );
}

/** Stores the issued charge unless it exists (a retry after a commit whose answer was lost); answers it and whether it is new. */
export async function createChargeOnce(
  attributes: CreationAttributes<Charge>,
  transaction: Transaction,
): Promise<{ charge: Charge; created: boolean }> {
  // A conflict means the id exists (a retry after a commit whose answer was lost): that one.
  const { row, created } = await insertOnce(Charge, attributes, { id: attributes.id }, transaction);
  return { charge: row, created };
}

/**
 * A subscription cycle's charge (issue 39): a PENDING Pix row with subscription_id set, its txid
 * the cobr's, so GET /charges, receipts, the dashboard and refunds see it; settled only by the
 * subscription's workflow (never by a charge lifecycle, the pix sweep or the /pix callbacks).
 * Once: a retry after a lost answer finds the row by its id.
 */
export async function createCycleChargeOnce(
  charge: {
    id: string;
    merchantId: string;
    subscriptionId: string;
    amountCents: number;
    feeCents: number;
    description: string;
    txid: string;
    pspConnectionId: string | null;
    expiresAt: Date;
  },
  transaction: Transaction,
): Promise<Charge> {
  const { charge: row } = await createChargeOnce(
    {
      id: charge.id,
      merchantId: charge.merchantId,
      subscriptionId: charge.subscriptionId,
      amountCents: charge.amountCents,
      feeCents: charge.feeCents,
      method: 'PIX',
      status: 'PENDING',
      description: charge.description,
      externalRef: null,
      metadata: null,
      pix: null,
      payerSnapshot: null,
      providerChargeId: charge.txid,
      pixTxid: charge.txid,
      pspConnectionId: charge.pspConnectionId,
      endToEndId: null,
      idempotencyKey: null,
      expiresAt: charge.expiresAt,
      paidAt: null,
      expiredAt: null,
      cancelledAt: null,
    },
    transaction,
  );
  return row;
}

/** The subscription of a charge's cycle (charges.subscription_id), or null for any other charge or none. */
export async function subscriptionOfCharge(chargeId: string, transaction?: Transaction): Promise<string | null> {
  const row = await Charge.findByPk(chargeId, { attributes: ['subscriptionId'], transaction });
  return row?.subscriptionId ?? null;
}

/** The charge's splits, in the order given; answers them as stored (ids included). */
export async function addSplits(
  chargeId: string,
  splits: { merchantId: string; amountCents: number; percentage: number | null }[],
  transaction: Transaction,
): Promise<{ id: string; merchantId: string; amountCents: number; percentage: number | null }[]> {
  const rows = await ChargeSplit.bulkCreate(
    splits.map((s, position) => ({
      id: crypto.randomUUID(),
      chargeId,
      merchantId: s.merchantId,
      amountCents: s.amountCents,
      percentage: s.percentage,
      position,
    })),
    { transaction },
  );
  return rows.map((s) => ({
    id: s.id,
    merchantId: s.merchantId,
    amountCents: s.amountCents,
    percentage: s.percentage,
  }));
}

/** A state change of the charge (paid, expired, cancelled), in the caller's transaction. */
export async function updateCharge(
  charge: Charge,
  changes: Partial<InferAttributes<Charge>>,
  transaction: Transaction,
): Promise<void> {
  await charge.update(changes, { transaction });
}

/** Our charges the provider knows by these ids (a merchant's only, when named). */
export function chargesByProviderIds(providerChargeIds: string[], merchantId: string | null): Promise<Charge[]> {
  return Charge.findAll({ where: { ...(merchantId ? { merchantId } : {}), providerChargeId: providerChargeIds } });
}

/** Whether a connected account has a boleto still waiting for payment (an index-only look). */
export async function hasPendingBoletoAt(connectionId: string): Promise<boolean> {
  return (
    (await Charge.findOne({
      attributes: ['id'],
      where: { pspConnectionId: connectionId, method: 'BOLETO', status: 'PENDING' },
    })) !== null
  );
}

/** Of these charge ids, the boletos still PENDING that were issued at this connected account. */
export function pendingBoletosAt(connectionId: string, chargeIds: string[]): Promise<Charge[]> {
  if (chargeIds.length === 0) return Promise.resolve([]);
  return Charge.findAll({
    attributes: ['id', 'merchantId'],
    where: { id: chargeIds, pspConnectionId: connectionId, method: 'BOLETO', status: 'PENDING' },
  });
}

/** One of these charges that exists, if any. */
export function anyExisting(ids: string[]): Promise<Charge | null> {
  return Charge.findOne({ where: { id: { [Op.in]: ids } } });
}
