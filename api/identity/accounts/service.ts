/**
 * A signed-in person's own account: register, read, update, change password, delete. The User
 * object never carries the password hash or any second-factor secret. Deleting erases personal
 * data (name, e-mail, phone, document, avatar) but keeps the row: charges, payouts and the
 * ledger of the user's merchants stay intact, and it is refused while such a merchant holds money.
 */
import crypto from 'node:crypto';
import { QueryTypes, UniqueConstraintError, type Sequelize } from 'sequelize';
import { hashPassword, verifyOrBurn } from '../../../core/identity/passwords';
import { onlyDigits } from '../../../core/documents';
import { AuthChallenge, MerchantMember, RecoveryCode, SecondFactor, User } from '../../../db/models';
import { policies, throttleKeys, type AttemptThrottle } from '../auth/attemptThrottle';
import { ApiError } from '../../errors/apiError';
import type { SessionService } from '../sessions/service';
import type { ProfileUpdate, Registration } from './schema';

export const accountErrors = {
  emailTaken: () => new ApiError(409, 'EMAIL_ALREADY_REGISTERED', 'an account with this e-mail already exists'),
  invalidPassword: () => new ApiError(403, 'INVALID_PASSWORD', 'the current password is wrong'),
  merchantHasBalance: (merchantIds: string[]) =>
    new ApiError(409, 'MERCHANT_HAS_BALANCE', 'the account owns a merchant that still holds money; withdraw it first', {
      merchantIds,
    }),
};

export interface UserView {
  id: string;
  email: string | null;
  name: string;
  phone: string | null;
  document: string | null;
  documentType: 'CPF' | 'CNPJ' | null;
  roles: string[];
  merchantId: string | null;
  kycStatus: string | null;
  avatarUrl: string | null;
  createdAt: string;
  updatedAt: string;
}

export class AccountService {
  constructor(private readonly deps: { sequelize: Sequelize; sessions: SessionService; throttle: AttemptThrottle }) {}

  async register(input: Registration): Promise<UserView> {
    const passwordHash = await hashPassword(input.password);
    try {
      const user = await User.create({
        id: crypto.randomUUID(),
        email: input.email.toLowerCase(),
        passwordHash,
        name: input.name,
        phone: input.phone ?? null,
        document: input.document ? onlyDigits(input.document) : null,
        documentType: input.documentType ?? null,
      });
      return this.view(user);
    } catch (err) {
      if (err instanceof UniqueConstraintError) throw accountErrors.emailTaken();
      throw err;
    }
  }

  async view(user: User): Promise<UserView> {
    const memberships = await MerchantMember.findAll({ where: { userId: user.id }, order: [['createdAt', 'ASC']] });
    const primary = memberships.find((m) => m.role === 'owner') ?? memberships[0];
    return {
      id: user.id,
      email: user.email,
      name: user.name,
      phone: user.phone,
      document: user.document,
      documentType: user.documentType,
      roles: [...new Set(memberships.map((m) => m.role))],
      merchantId: primary?.merchantId ?? null,
      kycStatus: user.kycStatus,
      avatarUrl: user.avatarUrl,
      createdAt: user.createdAt.toISOString(),
      updatedAt: user.updatedAt.toISOString(),
    };
  }

  async updateProfile(user: User, input: ProfileUpdate): Promise<UserView> {
    await user.update({
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.phone !== undefined ? { phone: input.phone } : {}),
      ...(input.document !== undefined
        ? { document: input.document ? onlyDigits(input.document) : null, documentType: input.documentType ?? null }
        : {}),
    });
    return this.view(user);
  }

  /** Changes the password and ends every other session of the user (this one stays). */
  async changePassword(user: User, sessionId: string, current: string, next: string): Promise<void> {
    if (!(await verifyOrBurn(user.passwordHash, current))) throw accountErrors.invalidPassword();
    const passwordHash = await hashPassword(next);
    await this.deps.sequelize.transaction(async (transaction) => {
      await user.update({ passwordHash }, { transaction });
      await this.deps.sessions.endAllOf(user.id, 'password changed', sessionId, transaction);
    });
  }

  /**
   * The current password of a signed-in user, braked like login and on the same `account:` key, so
   * a stolen access token gets no more guesses here than at POST /auth/login (429 TOO_MANY_ATTEMPTS
   * once locked, even for the right one). The attempt is counted before the hash is checked
   * (AttemptThrottle.take): guesses sent at once do not pass a check made before any failed.
   */
  async checkPassword(user: User, password: string): Promise<void> {
    const key = throttleKeys.account(user.email ?? user.id);
    await this.deps.throttle.take(key, policies.account);
    if (!(await verifyOrBurn(user.passwordHash, password))) throw accountErrors.invalidPassword();
    await this.deps.throttle.reset(key);
  }

  /** Erases personal data and ends every session; refused while an owned merchant holds money. */
  async delete(user: User): Promise<void> {
    await this.deps.sequelize.transaction(async (transaction) => {
      const owned = await MerchantMember.findAll({ where: { userId: user.id, role: 'owner' }, transaction });
      const ids = owned.map((m) => m.merchantId);
      if (ids.length) {
        const holding = await this.deps.sequelize.query<{ merchant_id: string }>(
          `SELECT DISTINCT split_part(code, ':', 2) AS merchant_id FROM ledger_accounts
            WHERE balance_cents <> 0 AND code IN (:codes)`,
          {
            type: QueryTypes.SELECT,
            transaction,
            replacements: {
              codes: ids.flatMap((id) => [
                `merchant:${id}:available`,
                `merchant:${id}:reserved`,
                `merchant:${id}:blocked`,
              ]),
            },
          },
        );
        if (holding.length) throw accountErrors.merchantHasBalance(holding.map((h) => h.merchant_id));
      }
      await user.update(
        {
          email: null,
          passwordHash: null,
          name: 'deleted user',
          phone: null,
          document: null,
          documentType: null,
          avatarKey: null,
          avatarUrl: null,
          deletedAt: new Date(),
        },
        { transaction },
      );
      await SecondFactor.destroy({ where: { userId: user.id }, transaction });
      await RecoveryCode.destroy({ where: { userId: user.id }, transaction });
      await AuthChallenge.destroy({ where: { userId: user.id }, transaction });
      await MerchantMember.destroy({ where: { userId: user.id }, transaction });
      await this.deps.sessions.endAllOf(user.id, 'account deleted', undefined, transaction);
    });
  }
}
