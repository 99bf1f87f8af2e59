/**
 * Who may do what for a merchant: the caller's merchant_members row. Someone who is not a member
 * gets 404, the same answer as for a merchant that does not exist, so trying other merchants' ids
 * reveals nothing; a member whose role is not allowed gets 403 INSUFFICIENT_ROLE.
 */
import { memberStore, type MemberRole, type MerchantMember } from '../../../db/identity';
import type { Tx } from '../../../db/tx';
import { ApiError } from '../../errors/apiError';

export const ANY_ROLE: readonly MemberRole[] = ['owner', 'admin', 'finance', 'viewer'];
export const MANAGERS: readonly MemberRole[] = ['owner', 'admin'];

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
  transaction?: Tx,
): Promise<MerchantMember> {
  const member = await memberStore.findMembership(userId, merchantId, transaction);
  if (!member) throw roleErrors.merchantNotFound();
  if (!allowed.includes(member.role)) throw roleErrors.insufficientRole(member.role, allowed);
  return member;
}

/** The merchant a list defaults to when none is named: the one the user owns, else the first they joined. */
export async function defaultMerchantOf(userId: string): Promise<string> {
  const memberships = await memberStore.membershipsOf(userId);
  const primary = memberships.find((m) => m.role === 'owner') ?? memberships[0];
  if (!primary) throw roleErrors.merchantNotFound();
  return primary.merchantId;
}
