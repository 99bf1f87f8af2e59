/**
 * The rest of a MED case besides its infraction row (migration 0040): the deadline alerts sent
 * (med_infraction_alerts), the merchant's defence (med_infraction_defences) and its evidence files
 * (med_infraction_evidence: keys in the object store). Their one writer and the way to read them,
 * for the activities (alerts, the answer at the deadline) and the API (defence, timeline).
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

/**
 * Records that the alert `hoursLeft` hours before the deadline was sent; answers false when it
 * already was (the row is what makes each alert go once, whatever retries the activity takes).
 */
export async function recordAlert(
  sequelize: Sequelize,
  infractionId: string,
  hoursLeft: number,
  transaction: Transaction,
): Promise<boolean> {
  const inserted = await sequelize.query<{ hours_left: number }>(
    `INSERT INTO med_infraction_alerts (infraction_id, hours_left) VALUES (:infractionId, :hoursLeft)
     ON CONFLICT DO NOTHING RETURNING hours_left`,
    { replacements: { infractionId, hoursLeft }, type: QueryTypes.SELECT, transaction },
  );
  return inserted.length > 0;
}

export interface AlertRow {
  hours_left: number;
  sent_at: Date;
}

export function alertsOf(sequelize: Sequelize, infractionId: string): Promise<AlertRow[]> {
  return sequelize.query<AlertRow>(
    `SELECT hours_left, sent_at FROM med_infraction_alerts WHERE infraction_id = :infractionId ORDER BY sent_at, hours_left DESC`,
    { replacements: { infractionId }, type: QueryTypes.SELECT },
  );
}

export interface DefenceRow {
  infraction_id: string;
  text: string;
  submitted_by: string;
  submitted_at: Date;
}

export interface EvidenceRow {
  id: string;
  infraction_id: string;
  object_key: string;
  content_type: string;
  size_bytes: number;
  created_at: Date;
}

export async function findDefence(
  sequelize: Sequelize,
  infractionId: string,
  transaction?: Transaction,
): Promise<DefenceRow | null> {
  const [row] = await sequelize.query<DefenceRow>(
    `SELECT * FROM med_infraction_defences WHERE infraction_id = :infractionId`,
    { replacements: { infractionId }, type: QueryTypes.SELECT, transaction },
  );
  return row ?? null;
}

export function evidenceOf(sequelize: Sequelize, infractionId: string): Promise<EvidenceRow[]> {
  return sequelize.query<EvidenceRow>(
    `SELECT * FROM med_infraction_evidence WHERE infraction_id = :infractionId ORDER BY created_at, id`,
    { replacements: { infractionId }, type: QueryTypes.SELECT },
  );
}

/**
 * Stores the defence (one per infraction; answers false, storing nothing, when one already is)
 * and its evidence files, in one transaction.
 */
export function insertDefence(
  sequelize: Sequelize,
  defence: {
    infractionId: string;
    text: string;
    submittedBy: string;
    evidence: { id: string; key: string; contentType: string; sizeBytes: number }[];
  },
): Promise<boolean> {
  return sequelize.transaction((transaction) => insertDefenceIn(sequelize, defence, transaction));
}

async function insertDefenceIn(
  sequelize: Sequelize,
  defence: Parameters<typeof insertDefence>[1],
  transaction: Transaction,
): Promise<boolean> {
  const inserted = await sequelize.query<{ infraction_id: string }>(
    `INSERT INTO med_infraction_defences (infraction_id, text, submitted_by) VALUES (:infractionId, :text, :submittedBy)
     ON CONFLICT DO NOTHING RETURNING infraction_id`,
    {
      replacements: { infractionId: defence.infractionId, text: defence.text, submittedBy: defence.submittedBy },
      type: QueryTypes.SELECT,
      transaction,
    },
  );
  if (inserted.length === 0) return false;
  for (const e of defence.evidence) {
    await sequelize.query(
      `INSERT INTO med_infraction_evidence (id, infraction_id, object_key, content_type, size_bytes)
       VALUES (:id, :infractionId, :key, :contentType, :sizeBytes)`,
      { replacements: { ...e, infractionId: defence.infractionId }, transaction },
    );
  }
  return true;
}
