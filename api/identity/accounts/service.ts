/**
 * A signed-in person's own account: register, read, update, change password, delete. The User
 * object never carries the password hash or any second-factor secret. Deleting erases personal
 * data (name, e-mail, phone, document, avatar) but keeps the row: charges, payouts and the
 * ledger of the user's merchants stay intact, and it is refused while such a merchant holds money.
 */
import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { hashPassword, verifyOrBurn, type PasswordHashing } from '../../../core/identity/passwords';
import { onlyDigits } from '../../../core/documents';
import { memberStore, secondFactorStore, userStore, type User } from '../../../db/identity';
import { balanceStore } from '../../../db/ledger';
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
  constructor(
    private readonly deps: {
      sequelize: Sequelize;
      sessions: SessionService;
      throttle: AttemptThrottle;
      passwordHashing: PasswordHashing;
    },
  ) {}

  async register(input: Registration): Promise<UserView> {
    const passwordHash = await hashPassword(input.password, this.deps.passwordHashing);
    const user = await userStore.createUser({
      id: crypto.randomUUID(),
      email: input.email.toLowerCase(),
      passwordHash,
      name: input.name,
      phone: input.phone ?? null,
      document: input.document ? onlyDigits(input.document) : null,
      documentType: input.documentType ?? null,
    });
    if (!user) throw accountErrors.emailTaken();
    return this.view(user);
  }

  async view(user: User): Promise<UserView> {
    const memberships = await memberStore.membershipsOf(user.id);
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
    await userStore.updateUser(user, {
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
    if (!(await verifyOrBurn(user.passwordHash, current, this.deps.passwordHashing)))
      throw accountErrors.invalidPassword();
    const passwordHash = await hashPassword(next, this.deps.passwordHashing);
    await this.deps.sequelize.transaction(async (transaction) => {
      await userStore.updateUser(user, { passwordHash }, transaction);
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
    if (!(await verifyOrBurn(user.passwordHash, password, this.deps.passwordHashing)))
      throw accountErrors.invalidPassword();
    await this.deps.throttle.reset(key);
  }

  /** Erases personal data and ends every session; refused while an owned merchant holds money. */
  async delete(user: User): Promise<void> {
    await this.deps.sequelize.transaction(async (transaction) => {
      const owned = await memberStore.ownershipsOf(user.id, transaction);
      const ids = owned.map((m) => m.merchantId);
      const holding = await balanceStore.merchantsHoldingMoney(this.deps.sequelize, ids, transaction);
      if (holding.length) throw accountErrors.merchantHasBalance(holding);
      await userStore.updateUser(
        user,
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
        transaction,
      );
      await secondFactorStore.removeAllOf(user.id, transaction);
      await memberStore.removeAllOf(user.id, transaction);
      await this.deps.sessions.endAllOf(user.id, 'account deleted', undefined, transaction);
    });
  }
}
