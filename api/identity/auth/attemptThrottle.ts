/**
 * Brute-force brakes, kept in PostgreSQL so every API instance sees the same counts: failed
 * logins per account (by e-mail, existing or not, so the lock reveals nothing) and per client
 * IP, and failed second-factor codes per user. Past a free allowance each further failure locks
 * the key for longer (doubling, capped); a locked key answers 429 TOO_MANY_ATTEMPTS with
 * Retry-After before any password is checked. Failures older than the window are forgotten.
 *
 * Two ways to count: `assertOpen` + `fail` checks before and counts after (the coarse per-IP
 * brake); `take` counts the attempt first, under the row's lock, so requests sent at once cannot
 * all pass a check made before any of them failed (an account's passwords at login and in the
 * re-checks, second-factor codes).
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { ApiError } from '../../errors/apiError';

export interface ThrottlePolicy {
  /** Failures allowed before the first lock. */
  free: number;
  /** First lock; each further failure doubles it. */
  baseLockSeconds: number;
  maxLockSeconds: number;
  /** A failure older than this starts the count again. */
  windowSeconds: number;
}

export const policies = {
  account: { free: 5, baseLockSeconds: 30, maxLockSeconds: 15 * 60, windowSeconds: 15 * 60 },
  ip: { free: 30, baseLockSeconds: 60, maxLockSeconds: 15 * 60, windowSeconds: 15 * 60 },
  secondFactor: { free: 5, baseLockSeconds: 60, maxLockSeconds: 15 * 60, windowSeconds: 15 * 60 },
} satisfies Record<string, ThrottlePolicy>;

export const tooManyAttempts = (retryAfterSeconds: number) =>
  new ApiError(429, 'TOO_MANY_ATTEMPTS', `too many failed attempts; retry in ${retryAfterSeconds} s`, {
    retryAfterSeconds,
  });

export class AttemptThrottle {
  constructor(private readonly sequelize: Sequelize) {}

  /** Throws 429 when any of the keys is locked now. */
  async assertOpen(keys: string[]): Promise<void> {
    const rows = await this.sequelize.query<{ wait: number }>(
      `SELECT CEIL(EXTRACT(EPOCH FROM (locked_until - now())))::int AS wait
         FROM login_throttles WHERE key IN (:keys) AND locked_until > now()`,
      { type: QueryTypes.SELECT, replacements: { keys } },
    );
    const wait = Math.max(0, ...rows.map((r) => r.wait));
    if (wait > 0) throw tooManyAttempts(wait);
  }

  /** Counts a failure; returns the lock it caused, in seconds (0 while within the allowance). */
  async fail(key: string, policy: ThrottlePolicy): Promise<number> {
    const [row] = await this.sequelize.query<{ failures: number }>(
      `INSERT INTO login_throttles (key, failures, last_failure_at) VALUES (:key, 1, now())
       ON CONFLICT (key) DO UPDATE SET
         failures = CASE WHEN login_throttles.last_failure_at < now() - make_interval(secs => :window) THEN 1 ELSE login_throttles.failures + 1 END,
         last_failure_at = now()
       RETURNING failures`,
      { type: QueryTypes.SELECT, replacements: { key, window: policy.windowSeconds } },
    );
    const lock = lockSeconds(row.failures, policy);
    if (lock === 0) return 0;
    await this.sequelize.query(
      `UPDATE login_throttles SET locked_until = now() + make_interval(secs => :lock) WHERE key = :key`,
      { replacements: { key, lock } },
    );
    return lock;
  }

  /**
   * Takes one attempt before the secret is checked: throws 429 when the key is locked, else counts
   * the attempt as a failure at once and, past the allowance, locks the key already (the attempt
   * that locks is still checked, as with `fail`). All under the key's row lock, so N requests at
   * once get at most `free + 1` checks. A right secret then calls `reset`; a wrong one needs
   * nothing more. With `transaction`, the count is part of it (a rollback gives the attempt back).
   */
  async take(key: string, policy: ThrottlePolicy, transaction?: Transaction): Promise<void> {
    const count = async (t: Transaction) => {
      await this.sequelize.query(
        `INSERT INTO login_throttles (key, failures, last_failure_at) VALUES (:key, 0, now()) ON CONFLICT (key) DO NOTHING`,
        {
          replacements: { key },
          transaction: t,
        },
      );
      const [row] = await this.sequelize.query<{ failures: number; wait: number; expired: boolean }>(
        `SELECT failures,
                COALESCE(CEIL(EXTRACT(EPOCH FROM (locked_until - now())))::int, 0) AS wait,
                last_failure_at < now() - make_interval(secs => :window) AS expired
           FROM login_throttles WHERE key = :key FOR UPDATE`,
        { type: QueryTypes.SELECT, replacements: { key, window: policy.windowSeconds }, transaction: t },
      );
      if (row.wait > 0) throw tooManyAttempts(row.wait);
      const failures = row.expired ? 1 : row.failures + 1;
      const lock = lockSeconds(failures, policy);
      await this.sequelize.query(
        `UPDATE login_throttles SET failures = :failures, last_failure_at = now(),
                locked_until = CASE WHEN :lock > 0 THEN now() + make_interval(secs => :lock) END
          WHERE key = :key`,
        { replacements: { key, failures, lock }, transaction: t },
      );
    };
    if (transaction) await count(transaction);
    else await this.sequelize.transaction(count);
  }

  async reset(key: string): Promise<void> {
    await this.sequelize.query(`DELETE FROM login_throttles WHERE key = :key`, { replacements: { key } });
  }
}

/** The lock a failure count causes: none within the allowance, then doubling up to the cap. */
function lockSeconds(failures: number, policy: ThrottlePolicy): number {
  const over = failures - policy.free;
  if (over <= 0) return 0;
  return Math.min(policy.baseLockSeconds * 2 ** Math.min(over - 1, 20), policy.maxLockSeconds);
}

export const throttleKeys = {
  account: (email: string) => `account:${email.toLowerCase()}`,
  ip: (ip: string | undefined) => `ip:${ip ?? 'unknown'}`,
  secondFactor: (userId: string) => `second-factor:${userId}`,
};
