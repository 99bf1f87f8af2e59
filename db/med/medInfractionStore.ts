/**
 * The med_infractions table: its one writer and the way to read it; the row and its public view
 * (GET /med/infractions/{id}, and the payload of every med.infraction.* event), shared by the API
 * and the activities so both show the same.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { ClaimParty } from '../../core/med/claim';

/**
 * OPEN: unanswered; IN_DEFENCE: the merchant's defence (REJECT) is at the PSP, which decides
 * (migration 0044); ACCEPTED: the devolução (accepted by the merchant, or upheld by the PSP);
 * REJECTED: released (dismissed by the PSP; before 0042, at the merchant's REJECT); CANCELLED: the
 * PSP cancelled the case, released.
 */
export type MedInfractionStatus = 'OPEN' | 'IN_DEFENCE' | 'ACCEPTED' | 'REJECTED' | 'CANCELLED';
export type MedDecisionValue = 'ACCEPT' | 'REJECT';
/** What the PSP decided of the case: the claim upheld, dismissed (the defence won), or the case cancelled. */
export type MedPspOutcome = 'UPHELD' | 'DISMISSED' | 'CANCELLED';
/** The statuses of a case still held (blocks and debts kept, recovery going on). */
export const HELD_STATUSES: readonly MedInfractionStatus[] = ['OPEN', 'IN_DEFENCE'];

export interface MedInfractionRow {
  id: string;
  provider_infraction_id: string;
  merchant_id: string;
  /** The PSP account it was read from and is answered through: null, the platform's; else the merchant's connection (migration 0037). */
  psp_connection_id: string | null;
  charge_id: string;
  end_to_end_id: string;
  disputed_cents: string | number;
  blocked_cents: string | number;
  blocked_at: Date | null;
  reason: string;
  status: MedInfractionStatus;
  decision: MedDecisionValue | null;
  justification: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  opened_at: Date;
  deadline_at: Date;
  refund_id: string | null;
  refund_cents: string | number | null;
  refund_status: string | null;
  /** MED 2.0: each party's share, hold and debt (migration 0040); null: MED 1's owner-only block, or a connection's. */
  parties: ClaimParty[] | null;
  psp_outcome: MedPspOutcome | null;
  psp_decided_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface MedInfractionView {
  id: string;
  providerInfractionId: string;
  merchantId: string;
  chargeId: string;
  endToEndId: string;
  disputedAmountCents: number;
  blockedAmountCents: number;
  reason: string;
  status: MedInfractionStatus;
  decision: MedDecisionValue | null;
  justification: string | null;
  decidedBy: string | null;
  decidedAt: string | null;
  openedAt: string;
  deadlineAt: string;
  refundId: string | null;
  refundAmountCents: number | null;
  refundStatus: string | null;
  /** Who the claim reaches and what each holds and still owes; [] for a claim held by the owner's account only. */
  parties: ClaimParty[];
  /** What the PSP decided of a defended (or cancelled) case, and when the gateway learnt it; null until then. */
  pspOutcome: MedPspOutcome | null;
  pspDecidedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

export function presentInfraction(r: MedInfractionRow): MedInfractionView {
  return {
    id: r.id,
    providerInfractionId: r.provider_infraction_id,
    merchantId: r.merchant_id,
    chargeId: r.charge_id,
    endToEndId: r.end_to_end_id,
    disputedAmountCents: Number(r.disputed_cents),
    blockedAmountCents: Number(r.blocked_cents),
    reason: r.reason,
    status: r.status,
    decision: r.decision,
    justification: r.justification,
    decidedBy: r.decided_by,
    decidedAt: iso(r.decided_at),
    openedAt: iso(r.opened_at) as string,
    deadlineAt: iso(r.deadline_at) as string,
    refundId: r.refund_id,
    refundAmountCents: r.refund_cents === null ? null : Number(r.refund_cents),
    refundStatus: r.refund_status,
    parties: r.parties ?? [],
    pspOutcome: r.psp_outcome ?? null,
    pspDecidedAt: iso(r.psp_decided_at ?? null),
    createdAt: iso(r.created_at) as string,
    updatedAt: iso(r.updated_at) as string,
  };
}

export async function findInfraction(
  sequelize: Sequelize,
  id: string,
  opts: { transaction?: Transaction; lock?: boolean } = {},
): Promise<MedInfractionRow | null> {
  const [row] = await sequelize.query<MedInfractionRow>(
    `SELECT * FROM med_infractions WHERE id = :id${opts.lock ? ' FOR UPDATE' : ''}`,
    {
      replacements: { id },
      type: QueryTypes.SELECT,
      transaction: opts.transaction,
    },
  );
  return row ?? null;
}

/**
 * The cases a merchant is a party of: its own charges' and those whose claim reached it as a split
 * partner (`parties`, through the GIN index of migration 0040; the owner's through (merchant_id,
 * created_at)).
 */
const PARTY_OF = `(merchant_id = :merchantId OR parties @> :party::jsonb)`;
const partyOf = (merchantId: string) => JSON.stringify([{ merchantId }]);

/** One page of the infractions a merchant is a party of (owner or split partner), newest first, with the total. */
export async function listInfractions(
  sequelize: Sequelize,
  q: { merchantId: string; status?: MedInfractionStatus; limit: number; offset: number },
): Promise<{ rows: MedInfractionRow[]; total: number }> {
  const rows = await sequelize.query<MedInfractionRow & { total: string }>(
    `SELECT *, count(*) OVER () AS total FROM med_infractions WHERE ${PARTY_OF} ${q.status ? 'AND status = :status' : ''}
      ORDER BY created_at DESC, id DESC LIMIT :limit OFFSET :offset`,
    {
      replacements: {
        merchantId: q.merchantId,
        party: partyOf(q.merchantId),
        status: q.status ?? null,
        limit: q.limit,
        offset: q.offset,
      },
      type: QueryTypes.SELECT,
    },
  );
  const total = rows.length ? Number(rows[0].total) : await countInfractions(sequelize, q.merchantId, q.status);
  return { rows, total };
}

async function countInfractions(sequelize: Sequelize, merchantId: string, status?: string): Promise<number> {
  const [row] = await sequelize.query<{ n: string }>(
    `SELECT count(*) AS n FROM med_infractions WHERE ${PARTY_OF} ${status ? 'AND status = :status' : ''}`,
    {
      replacements: { merchantId, party: partyOf(merchantId), status: status ?? null },
      type: QueryTypes.SELECT,
    },
  );
  return Number(row.n);
}

/** The merchant's infractions with these ids, oldest opened first. */
export async function merchantInfractions(
  sequelize: Sequelize,
  merchantId: string,
  ids: string[],
): Promise<MedInfractionRow[]> {
  if (ids.length === 0) return [];
  return sequelize.query<MedInfractionRow>(
    `SELECT * FROM med_infractions WHERE id IN (:ids) AND merchant_id = :merchantId ORDER BY opened_at, id`,
    {
      replacements: { ids, merchantId },
      type: QueryTypes.SELECT,
    },
  );
}

/**
 * When the newest infraction we hold from this PSP account was opened (where the next sync of that
 * account goes on from; `connectionId` null: the platform's); null when none.
 */
export async function newestOpenedAt(sequelize: Sequelize, connectionId: string | null): Promise<Date | null> {
  const [cursor] = await sequelize.query<{ since: Date | null }>(
    `SELECT max(opened_at) AS since FROM med_infractions WHERE psp_connection_id IS NOT DISTINCT FROM :connectionId`,
    {
      replacements: { connectionId },
      type: QueryTypes.SELECT,
    },
  );
  return cursor.since ? new Date(cursor.since) : null;
}

/** Whether an infraction with this provider id is stored (from whichever account). */
export async function isStored(sequelize: Sequelize, providerInfractionId: string): Promise<boolean> {
  const found = await sequelize.query(`SELECT 1 FROM med_infractions WHERE provider_infraction_id = :pid`, {
    replacements: { pid: providerInfractionId },
    type: QueryTypes.SELECT,
  });
  return found.length > 0;
}

/** Stores a new infraction unless one with its provider id exists; answers whether it did. */
export async function insertInfraction(
  sequelize: Sequelize,
  infraction: {
    id: string;
    providerInfractionId: string;
    merchantId: string;
    /** The account it was read from (null: the platform's). */
    pspConnectionId: string | null;
    chargeId: string;
    endToEndId: string;
    disputedCents: number;
    reason: string;
    openedAt: Date;
    deadlineAt: Date;
  },
): Promise<boolean> {
  const inserted = await sequelize.query<{ id: string }>(
    `INSERT INTO med_infractions (id, provider_infraction_id, merchant_id, psp_connection_id, charge_id, end_to_end_id, disputed_cents, reason, opened_at, deadline_at)
     VALUES (:id, :pid, :merchantId, :connectionId, :chargeId, :e2e, :amount, :reason, :openedAt, :deadlineAt)
     ON CONFLICT (provider_infraction_id) DO NOTHING RETURNING id`,
    {
      replacements: {
        id: infraction.id,
        pid: infraction.providerInfractionId,
        merchantId: infraction.merchantId,
        connectionId: infraction.pspConnectionId,
        chargeId: infraction.chargeId,
        e2e: infraction.endToEndId,
        amount: infraction.disputedCents,
        reason: infraction.reason,
        openedAt: infraction.openedAt,
        deadlineAt: infraction.deadlineAt,
      },
      type: QueryTypes.SELECT,
    },
  );
  return inserted.length > 0;
}

/**
 * The cases read from this PSP account (`connectionId` null: the platform's) the PSP may still
 * decide or cancel: OPEN and IN_DEFENCE, with their provider id and when they opened.
 */
export async function heldAtAccount(
  sequelize: Sequelize,
  connectionId: string | null,
): Promise<{ id: string; providerInfractionId: string; status: MedInfractionStatus; openedAt: Date }[]> {
  const rows = await sequelize.query<{
    id: string;
    provider_infraction_id: string;
    status: MedInfractionStatus;
    opened_at: Date;
  }>(
    `SELECT id, provider_infraction_id, status, opened_at FROM med_infractions
      WHERE status IN (:held) AND psp_connection_id IS NOT DISTINCT FROM :connectionId ORDER BY opened_at, id`,
    { replacements: { held: HELD_STATUSES, connectionId }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => ({
    id: r.id,
    providerInfractionId: r.provider_infraction_id,
    status: r.status,
    openedAt: new Date(r.opened_at),
  }));
}

/** Every OPEN infraction, with what its workflow needs. */
export async function openInfractions(
  sequelize: Sequelize,
): Promise<{ id: string; merchantId: string; deadlineAt: Date }[]> {
  const open = await sequelize.query<{ id: string; merchant_id: string; deadline_at: Date }>(
    `SELECT id, merchant_id, deadline_at FROM med_infractions WHERE status = 'OPEN'`,
    { type: QueryTypes.SELECT },
  );
  return open.map((r) => ({ id: r.id, merchantId: r.merchant_id, deadlineAt: new Date(r.deadline_at) }));
}

async function update(
  sequelize: Sequelize,
  id: string,
  set: string,
  replacements: Record<string, unknown>,
  transaction: Transaction,
): Promise<MedInfractionRow> {
  await sequelize.query(`UPDATE med_infractions SET ${set}, updated_at = now() WHERE id = :id`, {
    replacements: { ...replacements, id },
    transaction,
  });
  return (await findInfraction(sequelize, id, { transaction })) as MedInfractionRow;
}

/**
 * The claim is held: `blockedCents` (the owner's hold) and, MED 2.0, every party's share, hold and
 * debt; answers the row as it is now.
 */
export function markHeld(
  sequelize: Sequelize,
  id: string,
  blockedCents: number,
  parties: ClaimParty[],
  transaction: Transaction,
) {
  return update(
    sequelize,
    id,
    'blocked_cents = :blockedCents, blocked_at = now(), parties = :parties::jsonb',
    { blockedCents, parties: JSON.stringify(parties) },
    transaction,
  );
}

/** The parties as they are now (a recovery, a cancelled debt); the owner's hold is blocked_cents. */
export function setParties(
  sequelize: Sequelize,
  row: MedInfractionRow,
  parties: ClaimParty[],
  transaction: Transaction,
) {
  const owner = parties.find((p) => p.merchantId === row.merchant_id);
  return update(
    sequelize,
    row.id,
    'blocked_cents = :blockedCents, parties = :parties::jsonb',
    { blockedCents: owner?.heldCents ?? Number(row.blocked_cents), parties: JSON.stringify(parties) },
    transaction,
  );
}

/**
 * The cases on which any of these merchants may still owe (held: OPEN or IN_DEFENCE; ACCEPTED with
 * the devolução paid, its debt advanced by the platform), locked FOR UPDATE in one statement, oldest
 * opened first: one lock order for every writer, whichever merchants it credits. By merchant, those
 * it owes on.
 */
export async function casesOwedByAny(
  sequelize: Sequelize,
  merchantIds: string[],
  transaction: Transaction,
): Promise<Map<string, MedInfractionRow[]>> {
  const byMerchant = new Map<string, MedInfractionRow[]>();
  if (merchantIds.length === 0) return byMerchant;
  const replacements: Record<string, string> = {};
  const containment = merchantIds.map((merchantId, i) => {
    replacements[`party${i}`] = JSON.stringify([{ merchantId }]);
    return `parties @> :party${i}::jsonb`;
  });
  const rows = await sequelize.query<MedInfractionRow>(
    `SELECT * FROM med_infractions
      WHERE (${containment.join(' OR ')})
        AND (status IN ('OPEN', 'IN_DEFENCE') OR (status = 'ACCEPTED' AND refund_status = 'SUCCEEDED'))
      ORDER BY opened_at, id FOR UPDATE`,
    { replacements, type: QueryTypes.SELECT, transaction },
  );
  for (const merchantId of merchantIds)
    byMerchant.set(
      merchantId,
      rows.filter((r) => r.parties?.some((p) => p.merchantId === merchantId && p.owedCents > 0)),
    );
  return byMerchant;
}

/** Whether the charge has a case still held, OPEN or IN_DEFENCE (its refunds are refused until it ends). */
export async function hasOpenInfraction(
  sequelize: Sequelize,
  chargeId: string,
  transaction?: Transaction,
): Promise<boolean> {
  const found = await sequelize.query(
    `SELECT 1 FROM med_infractions WHERE charge_id = :chargeId AND status IN (:held)`,
    { replacements: { chargeId, held: HELD_STATUSES }, type: QueryTypes.SELECT, transaction },
  );
  return found.length > 0;
}

/** The disputed amount is blocked (`blockedCents` of it); answers the row as it is now. */
export function markBlocked(sequelize: Sequelize, id: string, blockedCents: number, transaction: Transaction) {
  return update(sequelize, id, 'blocked_cents = :blockedCents, blocked_at = now()', { blockedCents }, transaction);
}

export interface Decision {
  decision: MedDecisionValue;
  justification: string;
  decidedBy: string;
}

const DECIDED = `decision = :decision, justification = :justification, decided_by = :decidedBy, decided_at = now()`;

/** IN_DEFENCE: the merchant's REJECT is at the PSP, which decides (holds and debts stay); answers the row. */
export function recordInDefence(sequelize: Sequelize, id: string, decision: Decision, transaction: Transaction) {
  return update(sequelize, id, `status = 'IN_DEFENCE', ${DECIDED}`, { ...decision }, transaction);
}

const PSP_DECIDED = `psp_outcome = :outcome, psp_decided_at = now()`;

/**
 * The PSP's decision: DISMISSED → REJECTED, CANCELLED → CANCELLED (the claim released by the
 * caller); UPHELD → ACCEPTED with the devolução that returns `refund.amountCents` (PROCESSING), or
 * nothing left to return (refund null). The merchant's own decision fields stay. Answers the row.
 */
export function recordPspOutcome(
  sequelize: Sequelize,
  id: string,
  outcome: MedPspOutcome,
  refund: { refundId: string; amountCents: number } | null,
  transaction: Transaction,
) {
  if (outcome === 'DISMISSED')
    return update(sequelize, id, `status = 'REJECTED', ${PSP_DECIDED}`, { outcome }, transaction);
  if (outcome === 'CANCELLED')
    return update(sequelize, id, `status = 'CANCELLED', ${PSP_DECIDED}`, { outcome }, transaction);
  return refund
    ? update(
        sequelize,
        id,
        `status = 'ACCEPTED', ${PSP_DECIDED}, refund_id = :refundId, refund_cents = :amountCents, refund_status = 'PROCESSING'`,
        { outcome, ...refund },
        transaction,
      )
    : update(
        sequelize,
        id,
        `status = 'ACCEPTED', ${PSP_DECIDED}, refund_cents = 0, refund_status = 'NOTHING_TO_RETURN'`,
        { outcome },
        transaction,
      );
}

/** REJECTED: answers the row as it is now. */
export function recordRejected(sequelize: Sequelize, id: string, decision: Decision, transaction: Transaction) {
  return update(sequelize, id, `status = 'REJECTED', ${DECIDED}`, { ...decision }, transaction);
}

/**
 * ACCEPTED, with the devolução that returns `refund.amountCents` (refund_status PROCESSING), or
 * with nothing left to return (refund null: refund_cents 0, NOTHING_TO_RETURN). Answers the row.
 */
export function recordAccepted(
  sequelize: Sequelize,
  id: string,
  decision: Decision,
  refund: { refundId: string; amountCents: number } | null,
  transaction: Transaction,
) {
  return refund
    ? update(
        sequelize,
        id,
        `status = 'ACCEPTED', ${DECIDED}, refund_id = :refundId, refund_cents = :amountCents, refund_status = 'PROCESSING'`,
        { ...decision, ...refund },
        transaction,
      )
    : update(
        sequelize,
        id,
        `status = 'ACCEPTED', ${DECIDED}, refund_cents = 0, refund_status = 'NOTHING_TO_RETURN'`,
        { ...decision },
        transaction,
      );
}

/** The devolução's outcome (SUCCEEDED, FAILED, REFUSED…). */
export async function setRefundStatus(
  sequelize: Sequelize,
  id: string,
  refundStatus: string,
  transaction: Transaction,
): Promise<void> {
  await update(sequelize, id, 'refund_status = :refundStatus', { refundStatus }, transaction);
}
