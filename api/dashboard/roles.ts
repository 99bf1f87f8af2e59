/**
 * Who may do what for a merchant: the caller's merchant_members row. Someone who is not a member
 * gets 404, the same answer as for a merchant that does not exist, so trying other merchants' ids
 * reveals nothing; a member whose role is not allowed gets 403 INSUFFICIENT_ROLE.
 */
import type { Transaction } from 'sequelize';
import { MerchantMember } from '../../db/models';
import type { MemberRole } from '../../db/identity/merchantMember';
import { ApiError } from '../errors/apiError';

export const ANY_ROLE: readonly MemberRole[] = ['owner', 'admin', 'finance', 'viewer'];
export const MANAGERS: readonly MemberRole[] = ['owner', 'admin'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const roleErrors = {
  merchantNotFound: () => new ApiError(404, 'MERCHANT_NOT_FOUND', 'merchant not found'),
  insufficientRole: (role: MemberRole, allowed: readonly MemberRole[]) =>
    new ApiError(403, 'INSUFFICIENT_ROLE', `your role on this merchant (${role}) does not allow this`, {
      role,
      allowedRoles: [...allowed],
    }),
};

/** The caller's membership of the merchant when its role is allowed; else throws 404 or 403. */
export async function requireRole(
  userId: string,
  merchantId: string,
  allowed: readonly MemberRole[],
  transaction?: Transaction,
): Promise<MerchantMember> {
  const member = UUID.test(merchantId)
    ? await MerchantMember.findOne({ where: { userId, merchantId }, transaction })
    : null;
  if (!member) throw roleErrors.merchantNotFound();
  if (!allowed.includes(member.role)) throw roleErrors.insufficientRole(member.role, allowed);
  return member;
}

/** The merchant a list defaults to when none is named: the one the user owns, else the first they joined. */
export async function defaultMerchantOf(userId: string): Promise<string> {
  const memberships = await MerchantMember.findAll({ where: { userId }, order: [['createdAt', 'ASC']] });
  const primary = memberships.find((m) => m.role === 'owner') ?? memberships[0];
  if (!primary) throw roleErrors.merchantNotFound();
  return primary.merchantId;
}
