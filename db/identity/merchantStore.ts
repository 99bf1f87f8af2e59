/**
 * The merchants table: the one module that writes it, and the one its readers go through.
 * Branding (brand_logo_url, brand_color) is not on the model: only the checkout page and the
 * dashboard read it, by raw SQL here.
 */
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { CreationAttributes } from 'sequelize';
import { Merchant } from './merchant';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function findMerchant(id: string, transaction?: Transaction): Promise<Merchant | null> {
  return Merchant.findByPk(id, { transaction });
}

/**
 * The merchant's row under FOR NO KEY UPDATE, or null when there is none (an id that is not a
 * UUID finds none): reservations of one merchant queue behind it, while rows that only reference
 * the merchant are inserted meanwhile (their foreign-key check takes FOR KEY SHARE, which FOR
 * UPDATE would block; that wait made deadlocks under load). The merchant's id never changes.
 */
export async function lockMerchant(id: string, transaction: Transaction): Promise<Merchant | null> {
  return UUID.test(id) ? Merchant.findByPk(id, { transaction, lock: transaction.LOCK.NO_KEY_UPDATE }) : null;
}

/** Which of these ids are active merchants. */
export async function activeMerchantIds(ids: string[]): Promise<Set<string>> {
  const found = await Merchant.findAll({ where: { id: ids, active: true }, attributes: ['id'] });
  return new Set(found.map((m) => m.id));
}

export function createMerchant(attributes: CreationAttributes<Merchant>, transaction?: Transaction): Promise<Merchant> {
  return Merchant.create(attributes, { transaction });
}

export type MerchantChanges = Partial<
  Pick<
    Merchant,
    'withdrawalsFrozen' | 'pixKey' | 'pixKeyType' | 'pixKeyHolderName' | 'pixKeyHolderDocument' | 'payoutsEnabled'
  >
>;

export async function updateMerchant(merchant: Merchant, changes: MerchantChanges, transaction?: Transaction) {
  await merchant.update(changes, { transaction });
}

export interface Branding {
  logoUrl: string | null;
  color: string | null;
}

/** Sets the checkout page's logo and colour; a field left undefined stays as it is, null clears it. */
export async function setBranding(
  sequelize: Sequelize,
  merchantId: string,
  input: { logoUrl?: string | null; color?: string | null },
): Promise<void> {
  const sets: string[] = [];
  if (input.logoUrl !== undefined) sets.push('brand_logo_url = :logoUrl');
  if (input.color !== undefined) sets.push('brand_color = :color');
  if (sets.length === 0) return;
  await sequelize.query(`UPDATE merchants SET ${sets.join(', ')}, updated_at = now() WHERE id = :id`, {
    replacements: { id: merchantId, logoUrl: input.logoUrl ?? null, color: input.color ?? null },
  });
}

export async function findBranding(sequelize: Sequelize, merchantId: string): Promise<Branding | null> {
  const [brand] = await sequelize.query<{ brand_logo_url: string | null; brand_color: string | null }>(
    'SELECT brand_logo_url, brand_color FROM merchants WHERE id = :id',
    { replacements: { id: merchantId }, type: QueryTypes.SELECT },
  );
  return brand ? { logoUrl: brand.brand_logo_url, color: brand.brand_color } : null;
}

/** The merchant's name alone (what a payer's bank app shows), or null when there is no such merchant. */
export async function merchantName(id: string): Promise<string | null> {
  const merchant = await Merchant.findByPk(id, { attributes: ['name'] });
  return merchant?.name ?? null;
}

/** Whether the merchant exists and is active (id and active only are read). */
export async function isActiveMerchant(id: string): Promise<boolean> {
  const merchant = await Merchant.findByPk(id, { attributes: ['id', 'active'] });
  return Boolean(merchant?.active);
}
