/** The users table: its one writer and the way to read it. */
import { UniqueConstraintError, type CreationAttributes, type Transaction } from 'sequelize';
import { User } from './user';

export function findUser(id: string, transaction?: Transaction): Promise<User | null> {
  return User.findByPk(id, { transaction });
}

/** The user's row under FOR UPDATE (requests of one user queue behind it). */
export function lockUser(id: string, transaction: Transaction): Promise<User | null> {
  return User.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
}

/** The user with this e-mail (lower-cased by the caller), deleted or not. */
export function findUserByEmail(email: string): Promise<User | null> {
  return User.findOne({ where: { email } });
}

/** The account that signs in with this e-mail (lower-cased by the caller): never a deleted one. */
export function findActiveUserByEmail(email: string): Promise<User | null> {
  return User.findOne({ where: { email, deletedAt: null } });
}

/** Creates the user; null when the e-mail is taken (the unique index decides, not a look-up first). */
export async function createUser(attributes: CreationAttributes<User>): Promise<User | null> {
  try {
    return await User.create(attributes);
  } catch (err) {
    if (err instanceof UniqueConstraintError) return null;
    throw err;
  }
}

export type UserChanges = Partial<
  Pick<
    User,
    | 'email'
    | 'passwordHash'
    | 'name'
    | 'phone'
    | 'document'
    | 'documentType'
    | 'avatarKey'
    | 'avatarUrl'
    | 'platformOperator'
    | 'deletedAt'
  >
>;

export async function updateUser(user: User, changes: UserChanges, transaction?: Transaction): Promise<void> {
  await user.update(changes, { transaction });
}

export async function setAvatar(userId: string, avatar: { key: string; url: string }): Promise<void> {
  await User.update({ avatarKey: avatar.key, avatarUrl: avatar.url }, { where: { id: userId } });
}

/** The gateway's own staff (marked by the CLI `user operator`), never a merchant's role; a deleted account is not. */
export async function isPlatformOperator(userId: string): Promise<boolean> {
  const user = await User.findByPk(userId, { attributes: ['platformOperator', 'deletedAt'] });
  return Boolean(user && !user.deletedAt && user.platformOperator);
}
