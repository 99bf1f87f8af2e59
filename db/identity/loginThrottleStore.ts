/**
 * The login_throttles table (failed attempts per key and the lock they caused), shared by every
 * API instance: its one writer and the way to read it. The policy (allowance, lock lengths) is
 * the caller's (api/identity/auth/attemptThrottle.ts); this module only counts and locks.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

/** The longest wait, in whole seconds, among the keys locked now; 0 when none is. */
export async function longestWait(sequelize: Sequelize, keys: string[]): Promise<number> {
  const rows = await sequelize.query<{ wait: number }>(
    `SELECT CEIL(EXTRACT(EPOCH FROM (locked_until - now())))::int AS wait
       FROM login_throttles WHERE key IN (:keys) AND locked_until > now()`,
    { type: QueryTypes.SELECT, replacements: { keys } },
  );
  return Math.max(0, ...rows.map((r) => r.wait));
}

/** Counts a failure (a failure older than the window starts again at 1); answers the count. */
export async function countFailure(sequelize: Sequelize, key: string, windowSeconds: number): Promise<number> {
  const [row] = await sequelize.query<{ failures: number }>(
    `INSERT INTO login_throttles (key, failures, last_failure_at) VALUES (:key, 1, now())
     ON CONFLICT (key) DO UPDATE SET
       failures = CASE WHEN login_throttles.last_failure_at < now() - make_interval(secs => :window) THEN 1 ELSE login_throttles.failures + 1 END,
       last_failure_at = now()
     RETURNING failures`,
    { type: QueryTypes.SELECT, replacements: { key, window: windowSeconds } },
  );
  return row.failures;
}

export async function lockFor(sequelize: Sequelize, key: string, lockSeconds: number): Promise<void> {
  await sequelize.query(
    `UPDATE login_throttles SET locked_until = now() + make_interval(secs => :lock) WHERE key = :key`,
    { replacements: { key, lock: lockSeconds } },
  );
}

/**
 * The key's row under FOR UPDATE (created with no failures when missing): its failures, the
 * lock left in whole seconds (0 when none) and whether its last failure is older than the window.
 */
export async function lockKey(
  sequelize: Sequelize,
  key: string,
  windowSeconds: number,
  transaction: Transaction,
): Promise<{ failures: number; wait: number; expired: boolean }> {
  await sequelize.query(
    `INSERT INTO login_throttles (key, failures, last_failure_at) VALUES (:key, 0, now()) ON CONFLICT (key) DO NOTHING`,
    {
      replacements: { key },
      transaction,
    },
  );
  const [row] = await sequelize.query<{ failures: number; wait: number; expired: boolean }>(
    `SELECT failures,
            COALESCE(CEIL(EXTRACT(EPOCH FROM (locked_until - now())))::int, 0) AS wait,
            last_failure_at < now() - make_interval(secs => :window) AS expired
       FROM login_throttles WHERE key = :key FOR UPDATE`,
    { type: QueryTypes.SELECT, replacements: { key, window: windowSeconds }, transaction },
  );
  return row;
}

/** Stores the key's count as of now, locked for `lockSeconds` (none when 0). Under lockKey's lock. */
export async function recordAttempt(
  sequelize: Sequelize,
  key: string,
  failures: number,
  lockSeconds: number,
  transaction: Transaction,
): Promise<void> {
  await sequelize.query(
    `UPDATE login_throttles SET failures = :failures, last_failure_at = now(),
            locked_until = CASE WHEN :lock > 0 THEN now() + make_interval(secs => :lock) END
      WHERE key = :key`,
    { replacements: { key, failures, lock: lockSeconds }, transaction },
  );
}

export async function forget(sequelize: Sequelize, key: string): Promise<void> {
  await sequelize.query(`DELETE FROM login_throttles WHERE key = :key`, { replacements: { key } });
}
