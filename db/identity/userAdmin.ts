/**
 * Operator actions on people (CLI): create a user who can sign in to the application API, and
 * give a user a role on a merchant. Errors are plain sentences for the CLI; no password or hash
 * ever appears in one.
 */
import crypto from 'node:crypto';
import { UniqueConstraintError } from 'sequelize';
import { hashPassword, PASSWORD_MAX, PASSWORD_MIN } from '../../core/identity/passwords';
import { Merchant, MerchantMember, User } from '../models';
import { MEMBER_ROLES, type MemberRole } from './merchantMember';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;

export async function createUser(input: {
  email: string;
  name: string;
  password: string;
}): Promise<{ id: string; email: string }> {
  const email = input.email.trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 254) throw new Error('email must be an e-mail address');
  const name = input.name.trim();
  if (name.length < 2 || name.length > 120) throw new Error('name must have 2 to 120 characters');
  if (input.password.length < PASSWORD_MIN || input.password.length > PASSWORD_MAX)
    throw new Error(`password must have ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
  const passwordHash = await hashPassword(input.password);
  try {
    const user = await User.create({
      id: crypto.randomUUID(),
      email,
      passwordHash,
      name,
      phone: null,
      document: null,
      documentType: null,
    });
    return { id: user.id, email };
  } catch (err) {
    if (err instanceof UniqueConstraintError) throw new Error(`a user with e-mail ${email} already exists`);
    throw err;
  }
}

export function parseRole(value: string): MemberRole {
  const role = value.trim().toLowerCase();
  if (!(MEMBER_ROLES as readonly string[]).includes(role))
    throw new Error(`role must be one of ${MEMBER_ROLES.join(', ')}`);
  return role as MemberRole;
}

/** Adds the user to the merchant, or changes the role they already have there. */
export async function addUserToMerchant(input: {
  email: string;
  merchantId: string;
  role: MemberRole;
}): Promise<{ userId: string; merchantId: string; role: MemberRole; changed: 'added' | 'updated' }> {
  const email = input.email.trim().toLowerCase();
  const user = await User.findOne({ where: { email } });
  if (!user || user.deletedAt) throw new Error(`no user with e-mail ${email}`);
  const merchant = UUID.test(input.merchantId) ? await Merchant.findByPk(input.merchantId) : null;
  if (!merchant) throw new Error(`no merchant with id ${input.merchantId}`);
  const [member, created] = await MerchantMember.findOrCreate({
    where: { userId: user.id, merchantId: merchant.id },
    defaults: { userId: user.id, merchantId: merchant.id, role: input.role },
  });
  if (!created && member.role !== input.role) await member.update({ role: input.role });
  return { userId: user.id, merchantId: merchant.id, role: input.role, changed: created ? 'added' : 'updated' };
}

/** Marks (or unmarks) a user as a platform operator: the gateway's own staff, never set through the API. */
export async function setPlatformOperator(input: {
  email: string;
  operator: boolean;
}): Promise<{ userId: string; platformOperator: boolean }> {
  const email = input.email.trim().toLowerCase();
  const user = await User.findOne({ where: { email } });
  if (!user || user.deletedAt) throw new Error(`no user with e-mail ${email}`);
  await user.update({ platformOperator: input.operator });
  return { userId: user.id, platformOperator: input.operator };
}
