/**
 * The user_sessions and refresh_tokens tables (a login and its family of rotating refresh
 * tokens): their one writer and the way to read them.
 */
import crypto from 'node:crypto';
import { Op, QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { RefreshToken, UserSession } from './userSession';

export function findSession(id: string, transaction?: Transaction): Promise<UserSession | null> {
  return UserSession.findByPk(id, { transaction });
}

export function lockSession(id: string, transaction: Transaction): Promise<UserSession | null> {
  return UserSession.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
}

/** A new session with its first refresh token (stored as its hash only). */
export async function openSession(
  session: { id: string; userId: string },
  refresh: { tokenHash: string; expiresAt: Date },
  transaction: Transaction,
): Promise<void> {
  await UserSession.create({ id: session.id, userId: session.userId }, { transaction });
  await addRefreshToken(session.id, refresh, transaction);
}

export async function addRefreshToken(
  sessionId: string,
  refresh: { tokenHash: string; expiresAt: Date },
  transaction: Transaction,
): Promise<void> {
  await RefreshToken.create(
    { id: crypto.randomUUID(), sessionId, tokenHash: refresh.tokenHash, expiresAt: refresh.expiresAt },
    { transaction },
  );
}

/**
 * The refresh token with this hash under FOR UPDATE NOWAIT: a second request with the same token
 * fails at once (PostgreSQL 55P03) instead of queueing behind the first. Null when there is none.
 */
export async function lockRefreshTokenNowait(
  sequelize: Sequelize,
  tokenHash: string,
  transaction: Transaction,
): Promise<RefreshToken | null> {
  const [locked] = await sequelize.query<{ id: string }>(
    `SELECT id FROM refresh_tokens WHERE token_hash = :hash FOR UPDATE NOWAIT`,
    {
      type: QueryTypes.SELECT,
      replacements: { hash: tokenHash },
      transaction,
    },
  );
  return locked ? RefreshToken.findByPk(locked.id, { transaction }) : null;
}

export function findRefreshTokenByHash(tokenHash: string): Promise<RefreshToken | null> {
  return RefreshToken.findOne({ where: { tokenHash } });
}

export async function markRefreshTokenUsed(token: RefreshToken, transaction: Transaction): Promise<void> {
  await token.update({ usedAt: new Date() }, { transaction });
}

export async function touchSession(session: UserSession, transaction: Transaction): Promise<void> {
  await session.update({ lastUsedAt: new Date() }, { transaction });
}

export async function revokeSession(session: UserSession, reason: string, transaction: Transaction): Promise<void> {
  await session.update({ revokedAt: new Date(), revokedReason: reason }, { transaction });
}

/** Ends the session if it is open. */
export async function endSession(sessionId: string, reason: string): Promise<void> {
  await UserSession.update(
    { revokedAt: new Date(), revokedReason: reason },
    { where: { id: sessionId, revokedAt: null } },
  );
}

/** Ends every open session of a user but `keep`. */
export async function endSessionsOf(
  userId: string,
  reason: string,
  keep?: string,
  transaction?: Transaction,
): Promise<void> {
  await UserSession.update(
    { revokedAt: new Date(), revokedReason: reason },
    { where: { userId, revokedAt: null, ...(keep ? { id: { [Op.ne]: keep } } : {}) }, transaction },
  );
}
