/**
 * What a reconciliation compares the provider's statement with: our side of a date range, read
 * across charges, refunds, withdrawals, payout items and the ledger entries that settled them.
 * Read-only (the reconciliations table itself is written by reconciliationStore.ts); rows come out
 * camelCase. `merchantId` null reads every merchant (a platform-wide run).
 *
 * `connectionId` says which PSP account's statement the rows are compared with (issue 37): null,
 * the platform's, whose side is the charges (and their refunds) issued there, the payout batches
 * paid from there and every withdrawal; a connection id, that merchant's own account, whose side
 * is the charges issued on that connection (and their refunds) and the batches paid from it. A row
 * the statement names by id is read whatever its account: the statement is that account's.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';

/** A merchant's rows, or every merchant's for a platform-wide run (merchantId null: operators only). */
const inScope = (alias: string) => `(CAST(:merchantId AS uuid) IS NULL OR ${alias}.merchant_id = :merchantId)`;

/** A row of this account: the platform's (connectionId null) or the connection's. */
const onAccount = (alias: string) => `${alias}.psp_connection_id IS NOT DISTINCT FROM CAST(:connectionId AS uuid)`;

/** An id list for `IN (...)`: never empty (an empty list is no valid SQL). */
const orNull = (ids: string[]) => (ids.length ? ids : [null]);

export interface LedgerPaid {
  chargeId: string;
  providerChargeId: string | null;
  endToEndId: string | null;
  grossCents: number;
}

/**
 * CHARGE_PAID entries of the merchant's Pix charges on the account paid in [from, to), plus those of the charges
 * `chargeIds` (paid_at may sit just across a boundary): what each credited, gross.
 */
export async function paidCharges(
  sequelize: Sequelize,
  q: { merchantId: string | null; connectionId: string | null; from: string; to: string; chargeIds: string[] },
): Promise<LedgerPaid[]> {
  const rows = await sequelize.query<{
    id: string;
    provider_charge_id: string | null;
    end_to_end_id: string | null;
    gross_cents: string;
  }>(
    `SELECT c.id, c.provider_charge_id, c.end_to_end_id, SUM(p.amount_cents) FILTER (WHERE p.amount_cents > 0) AS gross_cents
     FROM charges c
     JOIN ledger_transactions t ON t.movement_key = 'charge-paid:' || c.id
     JOIN ledger_postings p ON p.transaction_id = t.id
     WHERE ${inScope('c')} AND c.method = 'PIX'
       AND ((${onAccount('c')} AND c.paid_at >= :from AND c.paid_at < :to) OR c.id IN (:ids))
     GROUP BY c.id`,
    {
      replacements: {
        merchantId: q.merchantId,
        connectionId: q.connectionId,
        from: q.from,
        to: q.to,
        ids: orNull(q.chargeIds),
      },
      type: QueryTypes.SELECT,
    },
  );
  return rows.map((r) => ({
    chargeId: r.id,
    providerChargeId: r.provider_charge_id,
    endToEndId: r.end_to_end_id,
    grossCents: Number(r.gross_cents),
  }));
}

/** A refund, withdrawal or payout item of the merchant, with what its completing ledger entry sent out. */
export interface Outgoing {
  id: string;
  transferKind: 'WITHDRAWAL' | 'PAYOUT_ITEM' | 'SPLIT_SEND' | null;
  chargeId: string | null;
  /** Its workflow has not settled it yet (it settles by the provider's record). */
  inProgress: boolean;
  endToEndId: string | null;
  /** Null: no completing ledger entry. */
  ledgerCents: number | null;
  inRange: boolean;
}

interface OutgoingRow {
  id: string;
  transfer_kind: 'WITHDRAWAL' | 'PAYOUT_ITEM' | 'SPLIT_SEND' | null;
  charge_id: string | null;
  in_progress: boolean;
  end_to_end_id: string | null;
  ledger_cents: string | null;
  in_range: boolean;
}

function outgoingOf(r: OutgoingRow): Outgoing {
  return {
    id: r.id,
    transferKind: r.transfer_kind,
    chargeId: r.charge_id,
    inProgress: r.in_progress,
    endToEndId: r.end_to_end_id,
    ledgerCents: r.ledger_cents === null ? null : Number(r.ledger_cents),
    inRange: r.in_range,
  };
}

/**
 * Devoluções: refunds of the account's charges settled in [from, to) or named in `refundIds`, with
 * their REFUND_COMPLETED entries (a devolução leaves the account that received the Pix).
 */
export async function settledRefunds(
  sequelize: Sequelize,
  q: { merchantId: string | null; connectionId: string | null; from: string; to: string; refundIds: string[] },
): Promise<Outgoing[]> {
  const refunds = await sequelize.query<OutgoingRow>(
    `SELECT r.id, NULL AS transfer_kind, r.charge_id, r.status = 'PROCESSING' AS in_progress, r.end_to_end_id,
       r.settled_at >= :from AND r.settled_at < :to AS in_range,
       (SELECT SUM(p.amount_cents) FILTER (WHERE p.amount_cents > 0) FROM ledger_transactions t JOIN ledger_postings p ON p.transaction_id = t.id
        WHERE t.movement_key = 'refund-complete:' || r.id) AS ledger_cents
     FROM refunds r JOIN charges c ON c.id = r.charge_id
     WHERE ${inScope('r')} AND ((${onAccount('c')} AND r.settled_at >= :from AND r.settled_at < :to) OR r.id IN (:ids))`,
    {
      replacements: {
        merchantId: q.merchantId,
        connectionId: q.connectionId,
        from: q.from,
        to: q.to,
        ids: orNull(q.refundIds),
      },
      type: QueryTypes.SELECT,
    },
  );
  return refunds.map(outgoingOf);
}

/**
 * Transfers out: withdrawals (settlements too) and payout items completed in [from, to) or named
 * in `transferIds`, with the money their WITHDRAWAL_COMPLETED / PAYOUT_ITEM_PAID entry sent to
 * provider clearing (the fee is ours and never reaches the provider). Withdrawals leave the
 * platform's account only (a connected merchant's money is in its own account already); a payout
 * item leaves its batch's account; a split send (SPLIT_SEND_COMPLETED) leaves its charge owner's
 * account, so it is the owner's (merchant_id) and that connection's.
 */
export async function settledTransfers(
  sequelize: Sequelize,
  q: { merchantId: string | null; connectionId: string | null; from: string; to: string; transferIds: string[] },
): Promise<Outgoing[]> {
  const clearing = `(SELECT SUM(p.amount_cents) FROM ledger_transactions t JOIN ledger_postings p ON p.transaction_id = t.id
      JOIN ledger_accounts a ON a.id = p.account_id AND a.code = '${accounts.providerClearing}' WHERE t.movement_key = :prefix || x.id)`;
  const rows = await sequelize.query<OutgoingRow>(
    `SELECT x.id, 'WITHDRAWAL' AS transfer_kind, NULL AS charge_id, x.status = 'PROCESSING' AS in_progress, x.provider_end_to_end_id AS end_to_end_id,
       x.processed_at >= :from AND x.processed_at < :to AS in_range, ${clearing.replace(':prefix', "'withdrawal-complete:'")} AS ledger_cents
     FROM withdrawals x
     WHERE ${inScope('x')}
       AND ((CAST(:connectionId AS uuid) IS NULL AND x.processed_at >= :from AND x.processed_at < :to) OR x.id IN (:ids))
     UNION ALL
     SELECT x.id, 'PAYOUT_ITEM', NULL, x.status IN ('PENDING', 'SENDING'), x.end_to_end_id,
       x.settled_at >= :from AND x.settled_at < :to, ${clearing.replace(':prefix', "'payout-item-paid:'")}
     FROM payout_items x JOIN payout_batches b ON b.id = x.batch_id
     WHERE ${inScope('x')} AND ((${onAccount('b')} AND x.settled_at >= :from AND x.settled_at < :to) OR x.id IN (:ids))
     UNION ALL
     SELECT x.id, 'SPLIT_SEND', x.charge_id::text, x.status = 'PENDING', x.end_to_end_id,
       x.settled_at >= :from AND x.settled_at < :to, ${clearing.replace(':prefix', "'split-send-complete:'")}
     FROM split_sends x
     WHERE ${inScope('x')} AND ((${onAccount('x')} AND x.settled_at >= :from AND x.settled_at < :to) OR x.id IN (:ids))`,
    {
      replacements: {
        merchantId: q.merchantId,
        connectionId: q.connectionId,
        from: q.from,
        to: q.to,
        ids: orNull(q.transferIds),
      },
      type: QueryTypes.SELECT,
    },
  );
  return rows.map(outgoingOf);
}

/**
 * Every merchant a day's money at the platform's account touched: Pix charges issued there paid
 * in [from, to) or on the statement (`providerChargeIds`), and refunds of those, withdrawals and
 * payout items of batches paid from there settled then or named on it (`references`). What a
 * merchant's own connection moved is its connection's reconciliation (activeConnections).
 */
export async function merchantsOfDay(
  sequelize: Sequelize,
  q: { from: string; to: string; providerChargeIds: string[]; references: string[] },
): Promise<string[]> {
  const merchants = await sequelize.query<{ merchant_id: string }>(
    `SELECT merchant_id FROM charges
     WHERE method = 'PIX' AND ((psp_connection_id IS NULL AND paid_at >= :from AND paid_at < :to) OR provider_charge_id IN (:providerIds))
     UNION SELECT r.merchant_id FROM refunds r JOIN charges c ON c.id = r.charge_id
       WHERE (c.psp_connection_id IS NULL AND r.settled_at >= :from AND r.settled_at < :to) OR r.id IN (:references)
     UNION SELECT merchant_id FROM withdrawals WHERE (processed_at >= :from AND processed_at < :to) OR id IN (:references)
     UNION SELECT i.merchant_id FROM payout_items i JOIN payout_batches b ON b.id = i.batch_id
       WHERE (b.psp_connection_id IS NULL AND i.settled_at >= :from AND i.settled_at < :to) OR i.id IN (:references)`,
    {
      replacements: {
        from: q.from,
        to: q.to,
        providerIds: orNull(q.providerChargeIds),
        references: orNull(q.references),
      },
      type: QueryTypes.SELECT,
    },
  );
  return merchants.map((m) => m.merchant_id);
}

/**
 * What a connected merchant's own PSP account should hold, by the ledger: its available, reserved
 * and blocked balances. Available is what the PSP paid it (its share of each split Pix: the
 * platform's fee and the partners' shares went to their accounts at settlement, so they are not
 * here); reserved is money promised to a send or a devolução not yet made, still in the account;
 * blocked is money under a MED infraction, still in the account until its devolução. Its fees are
 * the platform's (platform:fees) and what left is in provider clearing: neither is in the account.
 * Money the ledger gives the merchant at the platform's account (what it had before connecting, a
 * share of a platform-account charge split to it) is counted too, so it shows as a difference:
 * it is not in the merchant's own account, whatever the ledger says is its.
 */
export async function ledgerMirrorCents(sequelize: Sequelize, merchantId: string): Promise<number> {
  const [row] = await sequelize.query<{ cents: string | null }>(
    `SELECT SUM(balance_cents) AS cents FROM ledger_accounts WHERE code IN (:codes)`,
    {
      replacements: {
        codes: [
          accounts.merchantAvailable(merchantId),
          accounts.merchantReserved(merchantId),
          accounts.merchantBlocked(merchantId),
        ],
      },
      type: QueryTypes.SELECT,
    },
  );
  return Number(row.cents ?? 0);
}
