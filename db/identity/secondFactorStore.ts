/**
 * The second-factor tables: user_second_factors (TOTP seed, e-mail factor), recovery_codes,
 * auth_challenges (a step awaiting a code) and action_tokens (proof of a passed factor for one
 * action). Their one writer and the way to read them. Every "use" here is one conditional UPDATE
 * that answers whether this request won, so codes and tokens sent at once cannot both pass.
 */
import crypto from 'node:crypto';
import { Op, fn, literal, type Transaction } from 'sequelize';
import { insertOnce } from '../insertOnce';
import { ActionToken, AuthChallenge, RecoveryCode, SecondFactor, type ChallengePurpose } from './secondFactor';

// --- user_second_factors ------------------------------------------------------------------

export function findFactor(userId: string, transaction?: Transaction): Promise<SecondFactor | null> {
  return SecondFactor.findByPk(userId, { transaction });
}

/** The user's factor row, created empty on first use. */
export async function factorOf(userId: string): Promise<SecondFactor> {
  const { row: factor } = await insertOnce(SecondFactor, { userId }, { userId });
  return factor;
}

export function lockFactor(userId: string, transaction: Transaction): Promise<SecondFactor | null> {
  return SecondFactor.findByPk(userId, { transaction, lock: transaction.LOCK.UPDATE });
}

export type FactorChanges = Partial<
  Pick<
    SecondFactor,
    'totpSecretCiphertext' | 'totpPendingCiphertext' | 'totpEnabledAt' | 'totpLastStep' | 'emailEnabledAt'
  >
>;

export async function updateFactor(factor: SecondFactor, changes: FactorChanges, transaction?: Transaction) {
  await factor.update(changes, { transaction });
}

/** Compare-and-set of the last accepted TOTP step: true for the one request that moved it from `last` to `step`. */
export async function advanceTotpStep(
  userId: string,
  last: number | null,
  step: number,
  transaction: Transaction,
): Promise<boolean> {
  const [won] = await SecondFactor.update(
    { totpLastStep: String(step) },
    {
      where: { userId, ...(last === null ? { totpLastStep: null } : { totpLastStep: String(last) }) },
      transaction,
    },
  );
  return won === 1;
}

// --- recovery_codes -----------------------------------------------------------------------

export function unusedRecoveryCodes(userId: string, transaction?: Transaction): Promise<number> {
  return RecoveryCode.count({ where: { userId, usedAt: null }, transaction });
}

export async function addRecoveryCodes(userId: string, codeHashes: string[], transaction: Transaction): Promise<void> {
  await RecoveryCode.bulkCreate(
    codeHashes.map((codeHash) => ({ id: crypto.randomUUID(), userId, codeHash })),
    { transaction },
  );
}

/** Uses the recovery code with this hash: true once. */
export async function useRecoveryCode(userId: string, codeHash: string, transaction: Transaction): Promise<boolean> {
  const [used] = await RecoveryCode.update(
    { usedAt: new Date() },
    { where: { userId, codeHash, usedAt: null }, transaction },
  );
  return used === 1;
}

// --- auth_challenges ----------------------------------------------------------------------

export function createChallenge(challenge: {
  userId: string;
  purpose: ChallengePurpose;
  action: string | null;
  tokenHash: string | null;
  expiresAt: Date;
}): Promise<AuthChallenge> {
  return AuthChallenge.create({ id: crypto.randomUUID(), ...challenge });
}

/** A challenge still waiting for its code, by the database's clock. */
function awaitingCode() {
  return { completedAt: null, expiresAt: { [Op.gt]: fn('now') } };
}

/** The user's newest e-mail setup still waiting for its code. */
export function pendingEmailSetup(userId: string): Promise<AuthChallenge | null> {
  return AuthChallenge.findOne({
    where: { userId, purpose: 'EMAIL_SETUP', ...awaitingCode() },
    order: [['createdAt', 'DESC']],
  });
}

export function findLoginChallenge(tokenHash: string): Promise<AuthChallenge | null> {
  return AuthChallenge.findOne({ where: { tokenHash, purpose: 'LOGIN' } });
}

export function findActionChallenge(userId: string, challengeId: string): Promise<AuthChallenge | null> {
  return AuthChallenge.findOne({ where: { id: challengeId, userId, purpose: 'ACTION' } });
}

/**
 * Counts one code attempt on the challenge that matches, in one conditional UPDATE: null when it
 * has had `maxAttempts`, is completed or expired (or none matches). Concurrent requests queue on
 * the row.
 */
export async function takeChallengeAttempt(
  match: { id?: string; userId?: string; tokenHash?: string; purpose: ChallengePurpose },
  maxAttempts: number,
  transaction: Transaction,
): Promise<AuthChallenge | null> {
  const [, rows] = await AuthChallenge.update(
    { attempts: literal('attempts + 1') },
    {
      where: { ...match, attempts: { [Op.lt]: maxAttempts }, ...awaitingCode() },
      returning: true,
      transaction,
    },
  );
  return rows[0] ?? null;
}

/** Completes the challenge: true for the one request that did. */
export async function completeChallenge(challengeId: string, transaction: Transaction): Promise<boolean> {
  const [done] = await AuthChallenge.update(
    { completedAt: new Date() },
    { where: { id: challengeId, completedAt: null }, transaction },
  );
  return done === 1;
}

/** A new e-mail code for the challenge (replaces the previous one). */
export async function setEmailCode(challenge: AuthChallenge, codeHash: string, expiresAt: Date): Promise<void> {
  await challenge.update({ emailCodeHash: codeHash, emailCodeExpiresAt: expiresAt });
}

/** Uses the challenge's e-mail code if it has this hash and is live: true once. */
export async function useEmailCode(challengeId: string, codeHash: string, transaction?: Transaction): Promise<boolean> {
  const [used] = await AuthChallenge.update(
    { emailCodeHash: null, emailCodeExpiresAt: null },
    {
      where: { id: challengeId, emailCodeHash: codeHash, emailCodeExpiresAt: { [Op.gt]: new Date() } },
      transaction,
    },
  );
  return used === 1;
}

// --- action_tokens ------------------------------------------------------------------------

export async function addActionToken(
  token: { userId: string; action: string; tokenHash: string; expiresAt: Date },
  transaction?: Transaction,
): Promise<void> {
  await ActionToken.create({ id: crypto.randomUUID(), ...token }, { transaction });
}

function liveActionToken(tokenHash: string, userId: string, action: string) {
  return { tokenHash, userId, action, usedAt: null, expiresAt: { [Op.gt]: new Date() } };
}

export async function isLiveActionToken(tokenHash: string, userId: string, action: string): Promise<boolean> {
  return (await ActionToken.count({ where: liveActionToken(tokenHash, userId, action) })) === 1;
}

/** Uses the live action token: true once, for one request, however many send it at once. */
export async function useActionToken(
  tokenHash: string,
  userId: string,
  action: string,
  transaction?: Transaction,
): Promise<boolean> {
  const [used] = await ActionToken.update(
    { usedAt: new Date() },
    { where: liveActionToken(tokenHash, userId, action), transaction },
  );
  return used === 1;
}

// --- account deletion ---------------------------------------------------------------------

/** Removes the user's factor, recovery codes and challenges (an erased account keeps none). */
export async function removeAllOf(userId: string, transaction: Transaction): Promise<void> {
  await SecondFactor.destroy({ where: { userId }, transaction });
  await RecoveryCode.destroy({ where: { userId }, transaction });
  await AuthChallenge.destroy({ where: { userId }, transaction });
}
