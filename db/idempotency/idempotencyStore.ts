/**
 * The idempotency_records table: a key's claim (who holds it, until when) and its stored answer.
 * Its one writer and the way to read it. Every time comparison happens in PostgreSQL (now()),
 * never against a JavaScript Date read back from it: timestamps there have microseconds, a Date
 * only milliseconds.
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import { affectedRows } from '../affectedRows';

export interface KeyRef {
  merchantId: string;
  scope: string;
  key: string;
}

const KEY_WHERE = 'merchant_id = :merchantId AND scope = :scope AND key = :key';

const keyOf = (ref: KeyRef) => ({ merchantId: ref.merchantId, scope: ref.scope, key: ref.key });

/** An expired record no longer binds its key: deletes it. */
export async function dropExpired(sequelize: Sequelize, ref: KeyRef): Promise<void> {
  await sequelize.query(`DELETE FROM idempotency_records WHERE ${KEY_WHERE} AND expires_at <= now()`, {
    replacements: keyOf(ref),
  });
}

/** Claims a free key for `holder` (IN_PROGRESS, locked for lockSeconds); false when the key is taken. */
export async function insertClaim(
  sequelize: Sequelize,
  claim: KeyRef & {
    requestHash: string;
    resourceId: string;
    holder: string;
    lockSeconds: number;
    ttlHours: number;
  },
): Promise<boolean> {
  const inserted = await sequelize.query<{ resource_id: string }>(
    `INSERT INTO idempotency_records (merchant_id, scope, key, request_hash, state, resource_id, holder, locked_until, expires_at)
     VALUES (:merchantId, :scope, :key, :requestHash, 'IN_PROGRESS', :newResourceId, :holder,
             now() + make_interval(secs => :lockSeconds), now() + make_interval(hours => :ttlHours))
     ON CONFLICT (merchant_id, scope, key) DO NOTHING RETURNING resource_id`,
    {
      replacements: {
        ...keyOf(claim),
        requestHash: claim.requestHash,
        newResourceId: claim.resourceId,
        holder: claim.holder,
        lockSeconds: claim.lockSeconds,
        ttlHours: claim.ttlHours,
      },
      type: QueryTypes.SELECT,
    },
  );
  return inserted.length === 1;
}

/**
 * Takes over an IN_PROGRESS claim of the same payload whose holder stopped extending its lock (it
 * died); answers the claim's resource id, or null when there is no such claim.
 */
export async function takeOverClaim(
  sequelize: Sequelize,
  claim: KeyRef & { requestHash: string; holder: string; lockSeconds: number },
): Promise<string | null> {
  const taken = await sequelize.query<{ resource_id: string }>(
    `UPDATE idempotency_records SET holder = :holder, locked_until = now() + make_interval(secs => :lockSeconds), updated_at = now()
     WHERE ${KEY_WHERE} AND state = 'IN_PROGRESS' AND request_hash = :requestHash AND locked_until <= now() AND expires_at > now()
     RETURNING resource_id`,
    {
      replacements: {
        ...keyOf(claim),
        requestHash: claim.requestHash,
        holder: claim.holder,
        lockSeconds: claim.lockSeconds,
      },
      type: QueryTypes.SELECT,
    },
  );
  return taken.length === 1 ? taken[0].resource_id : null;
}

export interface StoredClaim {
  requestHash: string;
  state: 'IN_PROGRESS' | 'COMPLETED';
  resourceId: string;
  responseStatus: number | null;
  responseBody: unknown;
}

/** The key's record unless expired. */
export async function findLive(sequelize: Sequelize, ref: KeyRef): Promise<StoredClaim | null> {
  const [existing] = await sequelize.query<{
    request_hash: string;
    state: 'IN_PROGRESS' | 'COMPLETED';
    resource_id: string;
    response_status: number | null;
    response_body: unknown;
  }>(
    `SELECT request_hash, state, resource_id, response_status, response_body FROM idempotency_records WHERE ${KEY_WHERE} AND expires_at > now()`,
    { replacements: keyOf(ref), type: QueryTypes.SELECT },
  );
  if (!existing) return null;
  return {
    requestHash: existing.request_hash,
    state: existing.state,
    resourceId: existing.resource_id,
    responseStatus: existing.response_status,
    responseBody: existing.response_body,
  };
}

/** Keeps `holder`'s claim locked for lockSeconds more. False when the claim is no longer its. */
export async function extendClaim(
  sequelize: Sequelize,
  ref: KeyRef,
  holder: string,
  lockSeconds: number,
): Promise<boolean> {
  const [, meta] = await sequelize.query(
    `UPDATE idempotency_records SET locked_until = now() + make_interval(secs => :lockSeconds), updated_at = now()
     WHERE ${KEY_WHERE} AND holder = :holder AND state = 'IN_PROGRESS'`,
    { replacements: { ...keyOf(ref), holder, lockSeconds } },
  );
  return affectedRows(meta) === 1;
}

/** Stores `holder`'s answer. False when another request took the claim over meanwhile. */
export async function completeClaim(
  sequelize: Sequelize,
  ref: KeyRef,
  holder: string,
  answer: { status: number; body: unknown },
): Promise<boolean> {
  const [, meta] = await sequelize.query(
    `UPDATE idempotency_records SET state = 'COMPLETED', response_status = :status, response_body = CAST(:body AS JSONB), updated_at = now()
     WHERE ${KEY_WHERE} AND holder = :holder AND state = 'IN_PROGRESS'`,
    { replacements: { ...keyOf(ref), holder, status: answer.status, body: JSON.stringify(answer.body ?? null) } },
  );
  return affectedRows(meta) === 1;
}

/** Frees `holder`'s claim (its request created nothing). */
export async function releaseClaim(sequelize: Sequelize, ref: KeyRef, holder: string): Promise<void> {
  await sequelize.query(
    `DELETE FROM idempotency_records WHERE ${KEY_WHERE} AND holder = :holder AND state = 'IN_PROGRESS'`,
    {
      replacements: { ...keyOf(ref), holder },
    },
  );
}

/**
 * Ends `holder`'s lease at once and keeps the claim (and its resource id): a request that took
 * the claim over was refused, but the first holder's effect may exist, so the key stays bound to
 * it and the next same-key retry resumes the same resource id without waiting out a lease.
 */
export async function unlockClaim(sequelize: Sequelize, ref: KeyRef, holder: string): Promise<void> {
  await sequelize.query(
    `UPDATE idempotency_records SET locked_until = now(), updated_at = now()
     WHERE ${KEY_WHERE} AND holder = :holder AND state = 'IN_PROGRESS'`,
    { replacements: { ...keyOf(ref), holder } },
  );
}

/** Housekeeping: deletes every expired record; answers how many. */
export async function sweepExpired(sequelize: Sequelize): Promise<number> {
  const [, keys] = await sequelize.query(`DELETE FROM idempotency_records WHERE expires_at < now()`);
  return affectedRows(keys);
}
