/**
 * Sessions of the application API: login (password, then a second factor when the user has one),
 * refresh-token rotation with reuse detection, logout. A session is one login; its refresh
 * tokens form a family: each use hands out the next one, and presenting a token that was already
 * used (a stolen copy, or the victim after the thief) ends the whole family. A session also ends
 * 30 days after its login whatever the refreshes (absolute lifetime).
 */
import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { newOpaqueToken, sha256 } from '../../../core/identity/opaqueTokens';
import { verifyOrBurn, type PasswordHashing } from '../../../core/identity/passwords';
import { secondFactorStore, sessionStore, userStore, type SecondFactor } from '../../../db/identity';
import type { Tx } from '../../../db/tx';
import { ACCESS_TOKEN_TTL_SECONDS, type AccessTokens } from '../auth/accessTokens';
import { AttemptThrottle, policies, throttleKeys } from '../auth/attemptThrottle';
import { REFRESH_TOKEN_TTL_SECONDS } from '../auth/cookies';
import { ApiError } from '../../errors/apiError';

export const SESSION_MAX_AGE_SECONDS = 30 * 86_400;
/** A login's second step must be finished within this. */
export const LOGIN_CHALLENGE_TTL_SECONDS = 10 * 60;

export const sessionErrors = {
  invalidLogin: () => new ApiError(401, 'INVALID_LOGIN', 'e-mail or password is wrong'),
  refreshMissing: () => new ApiError(401, 'REFRESH_TOKEN_MISSING', 'the refresh_token cookie is missing; log in again'),
  refreshInvalid: () =>
    new ApiError(401, 'REFRESH_TOKEN_INVALID', 'the refresh token is invalid or expired; log in again'),
  refreshReused: () =>
    new ApiError(
      401,
      'REFRESH_TOKEN_REUSED',
      'this refresh token was already used: the session was ended for safety; log in again',
    ),
  refreshInProgress: () =>
    new ApiError(
      409,
      'REFRESH_IN_PROGRESS',
      'this refresh token is being used by another request; retry with the token that request receives',
    ),
};

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  sessionId: string;
}

export type LoginResult =
  | { kind: 'SIGNED_IN'; tokens: IssuedTokens }
  | { kind: 'SECOND_FACTOR'; challengeToken: string; methods: SecondFactorMethod[] };

export type SecondFactorMethod = 'totp' | 'email' | 'recovery';

export function methodsOf(factor: SecondFactor | null): SecondFactorMethod[] {
  if (!factor) return [];
  const methods: SecondFactorMethod[] = [];
  if (factor.totpEnabledAt) methods.push('totp');
  if (factor.emailEnabledAt) methods.push('email');
  if (methods.length) methods.push('recovery');
  return methods;
}

export class SessionService {
  constructor(
    private readonly deps: {
      sequelize: Sequelize;
      tokens: AccessTokens;
      throttle: AttemptThrottle;
      passwordHashing: PasswordHashing;
    },
  ) {}

  async login(email: string, password: string, ip: string | undefined): Promise<LoginResult> {
    const accountKey = throttleKeys.account(email);
    const ipKey = throttleKeys.ip(ip);
    await this.deps.throttle.assertOpen([ipKey]);
    // Counted before the password is checked: logins sent at once cannot all pass a lock check
    // made before any of them failed (the per-IP brake stays check-then-count: it is coarse).
    await this.deps.throttle.take(accountKey, policies.account);
    const user = await userStore.findActiveUserByEmail(email.toLowerCase());
    // Same work whether or not the account exists (verifyOrBurn hashes against a dummy).
    const ok = await verifyOrBurn(user?.passwordHash, password, this.deps.passwordHashing);
    if (!ok || !user) {
      await this.deps.throttle.fail(ipKey, policies.ip);
      throw sessionErrors.invalidLogin();
    }
    await this.deps.throttle.reset(accountKey);
    const methods = methodsOf(await secondFactorStore.findFactor(user.id));
    if (methods.length === 0) return { kind: 'SIGNED_IN', tokens: await this.open(user.id) };
    const challengeToken = newOpaqueToken('chl');
    await secondFactorStore.createChallenge({
      userId: user.id,
      purpose: 'LOGIN',
      action: null,
      tokenHash: sha256(challengeToken),
      expiresAt: new Date(Date.now() + LOGIN_CHALLENGE_TTL_SECONDS * 1000),
    });
    return { kind: 'SECOND_FACTOR', challengeToken, methods };
  }

  /** Opens a session (a new refresh family) for a user who proved who they are. */
  async open(userId: string, transaction?: Tx): Promise<IssuedTokens> {
    const sessionId = crypto.randomUUID();
    const refreshToken = newOpaqueToken('rt');
    const write = (t: Tx) =>
      sessionStore.openSession(
        { id: sessionId, userId },
        { tokenHash: sha256(refreshToken), expiresAt: refreshExpiry() },
        t,
      );
    if (transaction) await write(transaction);
    else await this.deps.sequelize.transaction(write);
    return {
      accessToken: await this.deps.tokens.issue({ userId, sessionId }),
      refreshToken,
      expiresIn: ACCESS_TOKEN_TTL_SECONDS,
      sessionId,
    };
  }

  /** One use of a refresh token: the next token and a fresh access token, or the family ends. */
  async refresh(presented: string): Promise<IssuedTokens> {
    if (presented.length > 200) throw sessionErrors.refreshInvalid();
    let reused = false;
    const result = await this.deps.sequelize
      .transaction(async (transaction) => {
        // NOWAIT: a second request with the same token fails at once (409) instead of queueing
        // behind the first and then looking like a reuse.
        const row = await sessionStore.lockRefreshTokenNowait(this.deps.sequelize, sha256(presented), transaction);
        if (!row) throw sessionErrors.refreshInvalid();
        const session = await sessionStore.lockSession(row.sessionId, transaction);
        if (!session || session.revokedAt) throw sessionErrors.refreshInvalid();
        if (row.usedAt) {
          await sessionStore.revokeSession(session, 'refresh token reused', transaction);
          reused = true;
          return null;
        }
        if (
          row.expiresAt.getTime() <= Date.now() ||
          session.createdAt.getTime() + SESSION_MAX_AGE_SECONDS * 1000 <= Date.now()
        )
          throw sessionErrors.refreshInvalid();
        const user = await userStore.findUser(session.userId, transaction);
        if (!user || user.deletedAt) throw sessionErrors.refreshInvalid();
        const next = newOpaqueToken('rt');
        await sessionStore.markRefreshTokenUsed(row, transaction);
        await sessionStore.addRefreshToken(
          session.id,
          { tokenHash: sha256(next), expiresAt: refreshExpiry() },
          transaction,
        );
        await sessionStore.touchSession(session, transaction);
        return { userId: user.id, sessionId: session.id, refreshToken: next };
      })
      .catch((err: unknown) => {
        // Another request holds this token's row: two tabs refreshing at once. Not a theft.
        if ((err as { parent?: { code?: string } }).parent?.code === '55P03') throw sessionErrors.refreshInProgress();
        throw err;
      });
    if (reused || !result) throw sessionErrors.refreshReused();
    return {
      accessToken: await this.deps.tokens.issue(result),
      refreshToken: result.refreshToken,
      expiresIn: ACCESS_TOKEN_TTL_SECONDS,
      sessionId: result.sessionId,
    };
  }

  /** The session a refresh token belongs to, if it is still open (logout by cookie). */
  async sessionOfRefreshToken(presented: string): Promise<string | null> {
    const row = await sessionStore.findRefreshTokenByHash(sha256(presented.slice(0, 200)));
    return row?.sessionId ?? null;
  }

  async end(sessionId: string, reason: string): Promise<void> {
    await sessionStore.endSession(sessionId, reason);
  }

  /** Ends every open session of a user but `keep` (password change, account deletion). */
  async endAllOf(userId: string, reason: string, keep?: string, transaction?: Tx): Promise<void> {
    await sessionStore.endSessionsOf(userId, reason, keep, transaction);
  }
}

function refreshExpiry(): Date {
  return new Date(Date.now() + REFRESH_TOKEN_TTL_SECONDS * 1000);
}
