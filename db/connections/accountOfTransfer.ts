/**
 * The PSP account a transfer was sent from, by its business id (the transfer path's reference):
 * a refund's (or MED devolução's) is its charge's account, a payout item's its batch's, a split
 * send's its charge owner's (the share was left there at settlement); anything
 * else (withdrawals, settlements) is the platform's, the only account they may leave from.
 * null: the platform's account.
 */
import { QueryTypes, type Sequelize } from 'sequelize';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function accountOfTransfer(sequelize: Sequelize, reference: string): Promise<string | null> {
  if (!UUID.test(reference)) return null;
  const [row] = await sequelize.query<{ psp_connection_id: string | null }>(
    `SELECT c.psp_connection_id FROM refunds r JOIN charges c ON c.id = r.charge_id WHERE r.id = :reference
     UNION ALL
     SELECT b.psp_connection_id FROM payout_items i JOIN payout_batches b ON b.id = i.batch_id WHERE i.id = :reference
     UNION ALL
     SELECT s.psp_connection_id FROM split_sends s WHERE s.id = :reference
     LIMIT 1`,
    { replacements: { reference }, type: QueryTypes.SELECT },
  );
  return row?.psp_connection_id ?? null;
}
