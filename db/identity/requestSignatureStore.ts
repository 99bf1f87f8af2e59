/** The request_signatures_seen table (request signatures accepted once, until they expire): its one writer. */
import { QueryTypes, type Sequelize } from 'sequelize';
import { affectedRows } from '../affectedRows';

/** Records the signature as seen for `windowSeconds`: true the first time, false for a replay. */
export async function markSeen(
  sequelize: Sequelize,
  seen: { credentialId: string; signature: string | undefined; windowSeconds: number },
): Promise<boolean> {
  const fresh = await sequelize.query(
    `INSERT INTO request_signatures_seen (credential_id, signature, expires_at)
     VALUES (:credentialId, :signature, now() + make_interval(secs => :windowSeconds))
     ON CONFLICT DO NOTHING RETURNING signature`,
    {
      replacements: {
        credentialId: seen.credentialId,
        signature: seen.signature,
        windowSeconds: seen.windowSeconds,
      },
      type: QueryTypes.SELECT,
    },
  );
  return fresh.length > 0;
}

/** Deletes the expired entries; answers how many. */
export async function sweepExpired(sequelize: Sequelize): Promise<number> {
  const [, signatures] = await sequelize.query(`DELETE FROM request_signatures_seen WHERE expires_at < now()`);
  return affectedRows(signatures);
}
