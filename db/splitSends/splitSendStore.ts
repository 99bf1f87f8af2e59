/**
 * The split_sends table (migration 0038 says what a row is): its one writer. Rows come out
 * camelCase, amounts as numbers.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { PixKeyType } from '../../core/provider';

export type SplitSendStatus = 'AWAITING_PAYMENT' | 'PENDING' | 'SENT' | 'FAILED';

export interface SplitSend {
  id: string;
  chargeId: string;
  /** The charge's owner: the send leaves its account, through its connection. */
  merchantId: string;
  recipientMerchantId: string;
  pspConnectionId: string;
  recipientConnectionId: string;
  pixKey: string;
  pixKeyType: PixKeyType;
  recipientName: string;
  recipientDocument: string | null;
  amountCents: number;
  status: SplitSendStatus;
  providerTransferId: string | null;
  endToEndId: string | null;
  failureCode: string | null;
  failureReason: string | null;
  settledAt: Date | null;
}

export type NewSplitSend = Omit<
  SplitSend,
  'status' | 'providerTransferId' | 'endToEndId' | 'failureCode' | 'failureReason' | 'settledAt'
>;

interface Row {
  id: string;
  charge_id: string;
  merchant_id: string;
  recipient_merchant_id: string;
  psp_connection_id: string;
  recipient_connection_id: string;
  pix_key: string;
  pix_key_type: PixKeyType;
  recipient_name: string;
  recipient_document: string | null;
  amount_cents: string;
  status: SplitSendStatus;
  provider_transfer_id: string | null;
  end_to_end_id: string | null;
  failure_code: string | null;
  failure_reason: string | null;
  settled_at: Date | null;
}

function fromRow(r: Row): SplitSend {
  return {
    id: r.id,
    chargeId: r.charge_id,
    merchantId: r.merchant_id,
    recipientMerchantId: r.recipient_merchant_id,
    pspConnectionId: r.psp_connection_id,
    recipientConnectionId: r.recipient_connection_id,
    pixKey: r.pix_key,
    pixKeyType: r.pix_key_type,
    recipientName: r.recipient_name,
    recipientDocument: r.recipient_document,
    amountCents: Number(r.amount_cents),
    status: r.status,
    providerTransferId: r.provider_transfer_id,
    endToEndId: r.end_to_end_id,
    failureCode: r.failure_code,
    failureReason: r.failure_reason,
    settledAt: r.settled_at,
  };
}

/**
 * The sends an issue decided for its charge, replacing those an earlier attempt of the same issue
 * decided (a recipient's connection may have changed in between; the configuration the PSP keeps
 * is the last attempt's too). Only rows still AWAITING_PAYMENT are replaced: a paid charge's are final.
 */
export async function planSends(sequelize: Sequelize, chargeId: string, sends: NewSplitSend[]): Promise<void> {
  await sequelize.transaction(async (transaction) => {
    await sequelize.query(`DELETE FROM split_sends WHERE charge_id = :chargeId AND status = 'AWAITING_PAYMENT'`, {
      replacements: { chargeId },
      transaction,
    });
    for (const s of sends) {
      await sequelize.query(
        `INSERT INTO split_sends (id, charge_id, merchant_id, recipient_merchant_id, psp_connection_id,
           recipient_connection_id, pix_key, pix_key_type, recipient_name, recipient_document, amount_cents, status)
         VALUES (:id, :chargeId, :merchantId, :recipientMerchantId, :pspConnectionId, :recipientConnectionId,
           :pixKey, :pixKeyType, :recipientName, :recipientDocument, :amountCents, 'AWAITING_PAYMENT')
         ON CONFLICT (id) DO NOTHING`,
        { replacements: { ...s }, transaction },
      );
    }
  });
}

/** The charge's sends, in the caller's transaction (the one crediting its payment). */
export async function sendsOfCharge(
  sequelize: Sequelize,
  chargeId: string,
  transaction?: Transaction,
): Promise<SplitSend[]> {
  const rows = await sequelize.query<Row>(`SELECT * FROM split_sends WHERE charge_id = :chargeId ORDER BY id`, {
    replacements: { chargeId },
    type: QueryTypes.SELECT,
    transaction,
  });
  return rows.map(fromRow);
}

/** AWAITING_PAYMENT → PENDING for the charge's sends, in the transaction that credits its payment. */
export async function markOwed(sequelize: Sequelize, chargeId: string, transaction: Transaction): Promise<void> {
  await sequelize.query(
    `UPDATE split_sends SET status = 'PENDING', updated_at = now()
      WHERE charge_id = :chargeId AND status = 'AWAITING_PAYMENT'`,
    { replacements: { chargeId }, transaction },
  );
}

export async function findSend(sequelize: Sequelize, id: string): Promise<SplitSend | null> {
  const [row] = await sequelize.query<Row>(`SELECT * FROM split_sends WHERE id = :id`, {
    replacements: { id },
    type: QueryTypes.SELECT,
  });
  return row ? fromRow(row) : null;
}

export async function lockSend(sequelize: Sequelize, id: string, transaction: Transaction): Promise<SplitSend | null> {
  const [row] = await sequelize.query<Row>(`SELECT * FROM split_sends WHERE id = :id FOR UPDATE`, {
    replacements: { id },
    type: QueryTypes.SELECT,
    transaction,
  });
  return row ? fromRow(row) : null;
}

/** The send's outcome, by the provider's record. */
export async function finishSend(
  sequelize: Sequelize,
  id: string,
  outcome: {
    status: 'SENT' | 'FAILED';
    providerTransferId: string | null;
    endToEndId: string | null;
    failureCode: string | null;
    failureReason: string | null;
  },
  transaction: Transaction,
): Promise<void> {
  await sequelize.query(
    `UPDATE split_sends SET status = :status, provider_transfer_id = :providerTransferId, end_to_end_id = :endToEndId,
       failure_code = :failureCode, failure_reason = :failureReason, settled_at = now(), updated_at = now()
     WHERE id = :id`,
    { replacements: { id, ...outcome }, transaction },
  );
}

/** Sends owed and not yet decided, oldest first (the janitor starts the ones whose workflow is gone). */
export async function pendingSendIds(sequelize: Sequelize, limit: number): Promise<string[]> {
  const rows = await sequelize.query<{ id: string }>(
    `SELECT id FROM split_sends WHERE status = 'PENDING' ORDER BY created_at LIMIT :limit`,
    { replacements: { limit }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => r.id);
}
