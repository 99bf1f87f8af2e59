/** The merchant_members table (who may do what for a merchant): its one writer and the way to read it. */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { insertOnce } from '../insertOnce';
import { MerchantMember, type MemberRole } from './merchantMember';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The user's membership of the merchant; null when none (an id that is not a UUID finds none). */
export async function findMembership(
  userId: string,
  merchantId: string,
  transaction?: Transaction,
): Promise<MerchantMember | null> {
  return UUID.test(merchantId) ? MerchantMember.findOne({ where: { userId, merchantId }, transaction }) : null;
}

/** Every membership of the user, oldest first. */
export function membershipsOf(userId: string, transaction?: Transaction): Promise<MerchantMember[]> {
  return MerchantMember.findAll({ where: { userId }, order: [['createdAt', 'ASC']], transaction });
}

/** The memberships in which the user is the owner, oldest first. */
export function ownershipsOf(userId: string, transaction?: Transaction): Promise<MerchantMember[]> {
  return MerchantMember.findAll({ where: { userId, role: 'owner' }, order: [['createdAt', 'ASC']], transaction });
}

export async function addMember(
  member: { userId: string; merchantId: string; role: MemberRole },
  transaction?: Transaction,
): Promise<void> {
  await MerchantMember.create(member, { transaction });
}

/** Adds the user with `role`, or changes the role they have; answers whether the row is new. */
export async function putMember(member: { userId: string; merchantId: string; role: MemberRole }): Promise<boolean> {
  const { row, created } = await insertOnce(MerchantMember, member, {
    userId: member.userId,
    merchantId: member.merchantId,
  });
  if (!created && row.role !== member.role) await row.update({ role: member.role });
  return created;
}

export async function removeAllOf(userId: string, transaction?: Transaction): Promise<void> {
  await MerchantMember.destroy({ where: { userId }, transaction });
}

/**
 * Where to write to the merchant's owners: the e-mail of every owner member whose account is
 * not deleted, or the merchant's own e-mail when it has none (a merchant made by an operator).
 */
export async function ownerAddresses(
  sequelize: Sequelize,
  merchantId: string,
  transaction?: Transaction,
): Promise<string[]> {
  const rows = await sequelize.query<{ email: string }>(
    `SELECT u.email FROM merchant_members m JOIN users u ON u.id = m.user_id
     WHERE m.merchant_id = :merchantId AND m.role = 'owner' AND u.deleted_at IS NULL AND u.email IS NOT NULL
     ORDER BY m.created_at`,
    { replacements: { merchantId }, type: QueryTypes.SELECT, transaction },
  );
  if (rows.length > 0) return rows.map((r) => r.email);
  const [merchant] = await sequelize.query<{ email: string | null }>(
    `SELECT email FROM merchants WHERE id = :merchantId`,
    { replacements: { merchantId }, type: QueryTypes.SELECT, transaction },
  );
  return merchant?.email ? [merchant.email] : [];
}
