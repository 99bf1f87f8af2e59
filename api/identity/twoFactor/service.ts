/**
 * Second factors: TOTP (setup shows a seed, a first code confirms it), e-mail codes (setup sends
 * a code, the code confirms it), recovery codes (given once when the first factor is turned on).
 * They complete a login that answered `secondFactorRequired`, and they open sensitive actions
 * (api/identity/twoFactor/actionTokens.ts). Failed codes count per user and lock with growing waits;
 * a challenge dies after 5 wrong codes; every code is single-use. Both counts are taken before a
 * code is checked, atomically (see takeAttempt), so codes sent at once cannot outrun them.
 * A factor turned on, a recovery code used and an action token for a money action are announced
 * to the account by e-mail (securityNotices.ts), queued in the transaction of the change itself:
 * if the notice cannot be queued, the change is not made (503).
 */
import crypto from 'node:crypto';
import QRCode from 'qrcode';
import { Op, fn, type Sequelize, type Transaction, type WhereOptions } from 'sequelize';
import { sha256 } from '../../../core/identity/opaqueTokens';
import { decryptSecret, encryptSecret } from '../../../core/crypto/secretBox';
import { AuthChallenge, RecoveryCode, SecondFactor, User } from '../../../db/models';
import { AttemptThrottle, policies, throttleKeys } from '../auth/attemptThrottle';
import { ApiError } from '../../errors/apiError';
import { methodsOf, type IssuedTokens, type SecondFactorMethod, type SessionService } from '../sessions/service';
import {
  isLiveActionToken,
  issueActionToken,
  secondFactorRequired,
  useActionToken,
  type SensitiveAction,
} from './actionTokens';
import {
  MONEY_ACTIONS,
  actionTokenIssued,
  factorTurnedOn,
  recoveryCodeUsed,
  type SecurityNotice,
} from './securityNotices';
import {
  EMAIL_CODE_TTL_SECONDS,
  RECOVERY_CODES,
  checkTotp,
  emailCodeHash,
  looksLikeRecoveryCode,
  newEmailCode,
  newRecoveryCode,
  newTotpSecret,
  recoveryCodeHash,
  totpUri,
} from './codes';

export interface MailSender {
  /** With `transaction`, the mail is queued in it: it goes out only if the transaction commits (api/mail/mailer.ts). */
  send(message: { to: string; subject: string; text: string }, opts?: { transaction?: Transaction }): Promise<unknown>;
}

const MAX_CODE_ATTEMPTS = 5;
const ACTION_CHALLENGE_TTL_SECONDS = 10 * 60;

export const twoFactorErrors = {
  invalidCode: () => new ApiError(401, 'INVALID_SECOND_FACTOR_CODE', 'the code is wrong, expired or already used'),
  invalidChallenge: () =>
    new ApiError(401, 'INVALID_CHALLENGE', 'the challenge is invalid, expired or already used; start again'),
  alreadyEnabled: (method: string) => new ApiError(409, 'SECOND_FACTOR_ALREADY_ENABLED', `${method} is already on`),
  notPending: (method: string) => new ApiError(409, 'SECOND_FACTOR_NOT_PENDING', `start the ${method} setup first`),
  noSecondFactor: () =>
    new ApiError(409, 'SECOND_FACTOR_NOT_PENDING', 'you have no second factor on; sensitive actions need none'),
  noEmailFactor: () => new ApiError(409, 'SECOND_FACTOR_NOT_PENDING', 'e-mail codes are not on for this account'),
  emailSetupNotPending: () =>
    new ApiError(
      409,
      'SECOND_FACTOR_NOT_PENDING',
      'no e-mail setup is waiting for a code (none started, expired, or 5 wrong codes): start the e-mail setup again',
    ),
};

export class TwoFactorService {
  constructor(
    private readonly deps: {
      sequelize: Sequelize;
      encryptionKey: Buffer;
      throttle: AttemptThrottle;
      sessions: SessionService;
      mail: MailSender;
    },
  ) {}

  async status(userId: string) {
    const factor = await SecondFactor.findByPk(userId);
    const recoveryCodesLeft = await RecoveryCode.count({ where: { userId, usedAt: null } });
    return {
      enabled: methodsOf(factor).length > 0,
      totp: { enabled: Boolean(factor?.totpEnabledAt), pending: Boolean(factor?.totpPendingCiphertext) },
      email: { enabled: Boolean(factor?.emailEnabledAt) },
      recoveryCodesLeft,
    };
  }

  // --- setup -------------------------------------------------------------------------------
  // The first factor is turned on with the access token alone. Once one is on, adding another
  // needs a fresh proof of an existing one, an action token for "manage-2fa" (`actionToken`):
  // else a stolen access token could enrol the thief's own TOTP and then pass every sensitive
  // action. The setup checks the token and leaves it; the confirm uses it, with the change.

  async totpSetup(
    user: User,
    actionToken?: string,
  ): Promise<{ otpauthUrl: string; secret: string; qrCodePng: string }> {
    const factor = await this.factorOf(user.id);
    if (factor.totpEnabledAt) throw twoFactorErrors.alreadyEnabled('TOTP');
    await this.assertMayAddFactor(factor, actionToken);
    const secret = newTotpSecret();
    await factor.update({ totpPendingCiphertext: encryptSecret(secret, this.deps.encryptionKey) });
    const otpauthUrl = totpUri(secret, user.email ?? user.id);
    return {
      otpauthUrl,
      secret,
      qrCodePng: await QRCode.toDataURL(otpauthUrl, { errorCorrectionLevel: 'M', margin: 2, width: 256 }),
    };
  }

  async totpConfirm(
    user: User,
    code: string,
    actionToken?: string,
  ): Promise<{ message: string; recoveryCodes: string[] }> {
    const factor = await this.factorOf(user.id);
    if (factor.totpEnabledAt) throw twoFactorErrors.alreadyEnabled('TOTP');
    const pending = factor.totpPendingCiphertext;
    if (!pending) throw twoFactorErrors.notPending('TOTP');
    await this.assertMayAddFactor(factor, actionToken);
    await this.deps.throttle.take(throttleKeys.secondFactor(user.id), policies.secondFactor);
    const step = checkTotp(decryptSecret(pending, this.deps.encryptionKey), code, null);
    if (step === null) throw twoFactorErrors.invalidCode();
    const recoveryCodes = await this.deps.sequelize.transaction(async (transaction) => {
      const locked = await this.lockedFactor(user.id, transaction);
      if (locked.totpEnabledAt) throw twoFactorErrors.alreadyEnabled('TOTP');
      // A setup in between replaced the seed this code was made from.
      if (locked.totpPendingCiphertext !== pending) throw twoFactorErrors.notPending('TOTP');
      await this.useAddFactorToken(locked, actionToken, transaction);
      const enabledAt = new Date();
      await locked.update(
        {
          totpSecretCiphertext: pending,
          totpPendingCiphertext: null,
          totpEnabledAt: enabledAt,
          totpLastStep: String(step),
        },
        { transaction },
      );
      const issued = await this.recoveryCodesIfNone(user.id, transaction);
      await this.notify(user, factorTurnedOn('TOTP', enabledAt, issued.length > 0), transaction);
      return issued;
    });
    await this.deps.throttle.reset(throttleKeys.secondFactor(user.id));
    return { message: 'TOTP is on', recoveryCodes };
  }

  async emailSetup(user: User, actionToken?: string): Promise<{ message: string; expiresAt: string }> {
    const factor = await this.factorOf(user.id);
    if (factor.emailEnabledAt) throw twoFactorErrors.alreadyEnabled('e-mail codes');
    await this.assertMayAddFactor(factor, actionToken);
    const challenge = await AuthChallenge.create({
      id: crypto.randomUUID(),
      userId: user.id,
      purpose: 'EMAIL_SETUP',
      action: null,
      tokenHash: null,
      expiresAt: inSeconds(EMAIL_CODE_TTL_SECONDS),
    });
    const expiresAt = await this.sendEmailCode(user, challenge, 'confirm e-mail codes');
    return { message: 'a code was sent to your e-mail', expiresAt: expiresAt.toISOString() };
  }

  async emailConfirm(
    user: User,
    code: string,
    actionToken?: string,
  ): Promise<{ message: string; recoveryCodes: string[] }> {
    const factor = await this.factorOf(user.id);
    if (factor.emailEnabledAt) throw twoFactorErrors.alreadyEnabled('e-mail codes');
    const pending = await AuthChallenge.findOne({
      where: { userId: user.id, purpose: 'EMAIL_SETUP', ...awaitingCode() },
      order: [['createdAt', 'DESC']],
    });
    if (!pending) throw twoFactorErrors.emailSetupNotPending();
    await this.assertMayAddFactor(factor, actionToken);
    const challenge = await this.takeAttempt(
      { id: pending.id, userId: user.id, purpose: 'EMAIL_SETUP' },
      twoFactorErrors.emailSetupNotPending,
    );
    const recoveryCodes = await this.deps.sequelize.transaction(async (transaction) => {
      if (!(await this.consumeEmailCode(challenge, code, transaction))) return null;
      const locked = await this.lockedFactor(user.id, transaction);
      if (locked.emailEnabledAt) throw twoFactorErrors.alreadyEnabled('e-mail codes');
      await this.useAddFactorToken(locked, actionToken, transaction);
      const enabledAt = new Date();
      await locked.update({ emailEnabledAt: enabledAt }, { transaction });
      const issued = await this.recoveryCodesIfNone(user.id, transaction);
      await this.notify(user, factorTurnedOn('e-mail codes', enabledAt, issued.length > 0), transaction);
      return issued;
    });
    if (!recoveryCodes) throw twoFactorErrors.invalidCode();
    await this.deps.throttle.reset(throttleKeys.secondFactor(user.id));
    return { message: 'e-mail codes are on', recoveryCodes };
  }

  // --- login second step -------------------------------------------------------------------

  async loginMethods(challengeToken: string): Promise<{ methods: SecondFactorMethod[]; expiresAt: string }> {
    const challenge = await this.loginChallenge(challengeToken);
    return {
      methods: methodsOf(await SecondFactor.findByPk(challenge.userId)),
      expiresAt: challenge.expiresAt.toISOString(),
    };
  }

  async loginEmail(challengeToken: string): Promise<{ message: string; expiresAt: string }> {
    const challenge = await this.loginChallenge(challengeToken);
    const factor = await SecondFactor.findByPk(challenge.userId);
    if (!factor?.emailEnabledAt) throw twoFactorErrors.noEmailFactor();
    const user = await User.findByPk(challenge.userId);
    if (!user || user.deletedAt) throw twoFactorErrors.invalidChallenge();
    const expiresAt = await this.sendEmailCode(user, challenge, 'sign in');
    return { message: 'a code was sent to your e-mail', expiresAt: expiresAt.toISOString() };
  }

  async loginComplete(challengeToken: string, code: string): Promise<IssuedTokens> {
    if (challengeToken.length > 200) throw twoFactorErrors.invalidChallenge();
    const challenge = await this.takeAttempt(
      { tokenHash: sha256(challengeToken), purpose: 'LOGIN' },
      twoFactorErrors.invalidChallenge,
    );
    // The code is used in the transaction that opens the session: a failure after it gives it back.
    const tokens = await this.deps.sequelize.transaction(async (transaction) => {
      const method = await this.verifyAny(challenge, code, transaction);
      if (!method) return null;
      const [done] = await AuthChallenge.update(
        { completedAt: new Date() },
        { where: { id: challenge.id, completedAt: null }, transaction },
      );
      if (done !== 1) throw twoFactorErrors.invalidChallenge(); // a parallel request completed it
      if (method === 'recovery') await this.notifyRecoveryCodeUsed(challenge.userId, 'sign in', transaction);
      return this.deps.sessions.open(challenge.userId, transaction);
    });
    if (!tokens) throw twoFactorErrors.invalidCode();
    await this.deps.throttle.reset(throttleKeys.secondFactor(challenge.userId));
    return tokens;
  }

  // --- sensitive actions -------------------------------------------------------------------

  async actionStart(
    user: User,
    action: SensitiveAction,
  ): Promise<{ challengeId: string; action: string; methods: SecondFactorMethod[]; expiresAt: string }> {
    const methods = methodsOf(await SecondFactor.findByPk(user.id));
    if (methods.length === 0) throw twoFactorErrors.noSecondFactor();
    const challenge = await AuthChallenge.create({
      id: crypto.randomUUID(),
      userId: user.id,
      purpose: 'ACTION',
      action,
      tokenHash: null,
      expiresAt: inSeconds(ACTION_CHALLENGE_TTL_SECONDS),
    });
    return { challengeId: challenge.id, action, methods, expiresAt: challenge.expiresAt.toISOString() };
  }

  async actionEmail(user: User, challengeId: string): Promise<{ message: string; expiresAt: string }> {
    const challenge = await this.actionChallenge(user.id, challengeId);
    const factor = await SecondFactor.findByPk(user.id);
    if (!factor?.emailEnabledAt) throw twoFactorErrors.noEmailFactor();
    const expiresAt = await this.sendEmailCode(user, challenge, `confirm "${challenge.action}"`);
    return { message: 'a code was sent to your e-mail', expiresAt: expiresAt.toISOString() };
  }

  async actionConfirm(
    user: User,
    challengeId: string,
    code: string,
  ): Promise<{ actionToken: string; action: string; expiresAt: string }> {
    const challenge = await this.takeAttempt(
      { id: challengeId, userId: user.id, purpose: 'ACTION' },
      twoFactorErrors.invalidChallenge,
    );
    const action = challenge.action as SensitiveAction;
    const issued = await this.deps.sequelize.transaction(async (transaction) => {
      const method = await this.verifyAny(challenge, code, transaction);
      if (!method) return null;
      const [done] = await AuthChallenge.update(
        { completedAt: new Date() },
        { where: { id: challenge.id, completedAt: null }, transaction },
      );
      if (done !== 1) throw twoFactorErrors.invalidChallenge();
      const token = await issueActionToken(user.id, action, transaction);
      if (method === 'recovery') await this.notifyRecoveryCodeUsed(user.id, action, transaction);
      if (MONEY_ACTIONS.has(action)) await this.notify(user, actionTokenIssued(action, new Date()), transaction);
      return token;
    });
    if (!issued) throw twoFactorErrors.invalidCode();
    await this.deps.throttle.reset(throttleKeys.secondFactor(user.id));
    return { actionToken: issued.actionToken, action, expiresAt: issued.expiresAt.toISOString() };
  }

  // --- internals ---------------------------------------------------------------------------

  private async factorOf(userId: string): Promise<SecondFactor> {
    const [factor] = await SecondFactor.findOrCreate({ where: { userId }, defaults: { userId } });
    return factor;
  }

  /** The factor row under lock: a confirm decides and changes on what no other request changes meanwhile. */
  private async lockedFactor(userId: string, transaction: Transaction): Promise<SecondFactor> {
    const factor = await SecondFactor.findByPk(userId, { transaction, lock: transaction.LOCK.UPDATE });
    if (!factor) throw twoFactorErrors.notPending('second factor'); // factorOf created it; only a deleted account loses it
    return factor;
  }

  /** Refuses (403 SECOND_FACTOR_REQUIRED) to add a factor beside one that is on without a live "manage-2fa" token. */
  private async assertMayAddFactor(factor: SecondFactor, actionToken: string | undefined): Promise<void> {
    if (methodsOf(factor).length === 0) return;
    if (!(await isLiveActionToken(actionToken, factor.userId, 'manage-2fa'))) throw secondFactorRequired('manage-2fa');
  }

  /** Uses the "manage-2fa" token with the change it allows, when a factor is on (decided on the locked row). */
  private async useAddFactorToken(
    locked: SecondFactor,
    actionToken: string | undefined,
    transaction: Transaction,
  ): Promise<void> {
    if (methodsOf(locked).length === 0) return;
    if (!(await useActionToken(actionToken, locked.userId, 'manage-2fa', transaction)))
      throw secondFactorRequired('manage-2fa');
  }

  private async loginChallenge(token: string): Promise<AuthChallenge> {
    const challenge =
      token.length <= 200
        ? await AuthChallenge.findOne({ where: { tokenHash: sha256(token), purpose: 'LOGIN' } })
        : null;
    if (
      !challenge ||
      challenge.completedAt ||
      challenge.expiresAt <= new Date() ||
      challenge.attempts >= MAX_CODE_ATTEMPTS
    )
      throw twoFactorErrors.invalidChallenge();
    return challenge;
  }

  private async actionChallenge(userId: string, challengeId: string): Promise<AuthChallenge> {
    const challenge = await AuthChallenge.findOne({ where: { id: challengeId, userId, purpose: 'ACTION' } });
    if (
      !challenge ||
      challenge.completedAt ||
      challenge.expiresAt <= new Date() ||
      challenge.attempts >= MAX_CODE_ATTEMPTS
    )
      throw twoFactorErrors.invalidChallenge();
    return challenge;
  }

  /**
   * Counts one code attempt before the code is checked: on the challenge (one conditional UPDATE,
   * refused with `dead()` once it has had 5, is completed or expired) and on the user's lock
   * (429 when locked), in one transaction so that a locked user does not use up the challenge.
   * Concurrent requests queue on the challenge row: at most 5 codes are ever checked per challenge.
   */
  private async takeAttempt(where: WhereOptions<AuthChallenge>, dead: () => ApiError): Promise<AuthChallenge> {
    return this.deps.sequelize.transaction(async (transaction) => {
      const [, rows] = await AuthChallenge.update(
        { attempts: this.deps.sequelize.literal('attempts + 1') },
        {
          where: { ...where, attempts: { [Op.lt]: MAX_CODE_ATTEMPTS }, ...awaitingCode() },
          returning: true,
          transaction,
        },
      );
      const challenge = rows[0];
      if (!challenge) throw dead();
      await this.deps.throttle.take(throttleKeys.secondFactor(challenge.userId), policies.secondFactor, transaction);
      return challenge;
    });
  }

  /** Uses a code for this challenge: TOTP, then the challenge's e-mail code, then a recovery code. Answers which one it was, or null. */
  private async verifyAny(
    challenge: AuthChallenge,
    code: string,
    transaction: Transaction,
  ): Promise<SecondFactorMethod | null> {
    const factor = await SecondFactor.findByPk(challenge.userId, { transaction });
    if (!factor) return null;
    if (factor.totpEnabledAt && factor.totpSecretCiphertext) {
      const last = factor.totpLastStep === null ? null : Number(factor.totpLastStep);
      const step = checkTotp(decryptSecret(factor.totpSecretCiphertext, this.deps.encryptionKey), code, last);
      if (step !== null) {
        // Compare-and-set: two requests with the same code cannot both pass.
        const [won] = await SecondFactor.update(
          { totpLastStep: String(step) },
          {
            where: {
              userId: challenge.userId,
              ...(last === null ? { totpLastStep: null } : { totpLastStep: String(last) }),
            },
            transaction,
          },
        );
        return won === 1 ? 'totp' : null;
      }
    }
    if (factor.emailEnabledAt && (await this.consumeEmailCode(challenge, code, transaction))) return 'email';
    if (looksLikeRecoveryCode(code)) {
      const [used] = await RecoveryCode.update(
        { usedAt: new Date() },
        { where: { userId: challenge.userId, codeHash: recoveryCodeHash(code), usedAt: null }, transaction },
      );
      return used === 1 ? 'recovery' : null;
    }
    return null;
  }

  /** Queues `notice` to the account in `transaction`: no notice, no change (Mailer.send throws 503). */
  private async notify(user: User, notice: SecurityNotice, transaction: Transaction): Promise<void> {
    if (!user.email) return; // only a deleted account has none, and it can neither sign in nor hold factors
    await this.deps.mail.send({ to: user.email, ...notice }, { transaction });
  }

  private async notifyRecoveryCodeUsed(
    userId: string,
    purpose: 'sign in' | SensitiveAction,
    transaction: Transaction,
  ): Promise<void> {
    const user = await User.findByPk(userId, { transaction });
    if (!user) return;
    const left = await RecoveryCode.count({ where: { userId, usedAt: null }, transaction });
    await this.notify(user, recoveryCodeUsed(purpose, left, new Date()), transaction);
  }

  private async consumeEmailCode(challenge: AuthChallenge, code: string, transaction?: Transaction): Promise<boolean> {
    if (!/^\d{6}$/.test(code)) return false;
    const [used] = await AuthChallenge.update(
      { emailCodeHash: null, emailCodeExpiresAt: null },
      {
        where: {
          id: challenge.id,
          emailCodeHash: emailCodeHash(challenge.id, code),
          emailCodeExpiresAt: { [Op.gt]: new Date() },
        },
        transaction,
      },
    );
    return used === 1;
  }

  private async sendEmailCode(user: User, challenge: AuthChallenge, purpose: string): Promise<Date> {
    if (!user.email) throw twoFactorErrors.invalidChallenge();
    const code = newEmailCode();
    const expiresAt = inSeconds(EMAIL_CODE_TTL_SECONDS);
    // A new code replaces the previous one of the same challenge.
    await challenge.update({ emailCodeHash: emailCodeHash(challenge.id, code), emailCodeExpiresAt: expiresAt });
    await this.deps.mail.send({
      to: user.email,
      // Not in the subject: mail servers log subjects.
      subject: 'Your Pix Gateway verification code',
      text: `Your code to ${purpose} is ${code}. It expires in 10 minutes and works once.\n\nIf you did not ask for it, change your password.`,
    });
    return expiresAt;
  }

  private async recoveryCodesIfNone(userId: string, transaction: Transaction): Promise<string[]> {
    if ((await RecoveryCode.count({ where: { userId, usedAt: null }, transaction })) > 0) return [];
    const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    await RecoveryCode.bulkCreate(
      codes.map((code) => ({ id: crypto.randomUUID(), userId, codeHash: recoveryCodeHash(code) })),
      { transaction },
    );
    return codes;
  }
}

/** A challenge still waiting for its code, by the database's clock. */
function awaitingCode() {
  return { completedAt: null, expiresAt: { [Op.gt]: fn('now') } };
}

function inSeconds(seconds: number): Date {
  return new Date(Date.now() + seconds * 1000);
}
