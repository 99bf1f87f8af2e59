/**
 * The dashboard's merchant and its API credentials, for a signed-in user. Every operation on a
 * merchant goes through requireRole (roles.ts) first; client secrets are returned once, at
 * creation, and stored only encrypted (db/identity/merchantAdmin.ts).
 */
import crypto from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import { documentType, onlyDigits } from '../../core/documents';
import { createApiCredential, type IssuedCredential } from '../../db/identity/merchantAdmin';
import { ApiCredential, Merchant, MerchantMember, User } from '../../db/models';
import { ApiError } from '../errors/apiError';
import { ANY_ROLE, MANAGERS, requireRole } from './roles';
import type { Branding, EnsureMerchant, NewDashboardCredential } from './schema';

export const dashboardErrors = {
  noMerchant: () =>
    new ApiError(
      404,
      'MERCHANT_NOT_FOUND',
      'you have no merchant yet; create one with POST /dashboard/merchant/ensure',
    ),
  credentialNotFound: () => new ApiError(404, 'CREDENTIAL_NOT_FOUND', 'API credential not found'),
};

export interface MerchantView {
  id: string;
  name: string;
  email: string | null;
  document: string | null;
  type: 'PRODUCER' | 'RIFEIRO';
  active: boolean;
}

export interface CredentialView {
  clientId: string;
  merchantId: string;
  name: string | null;
  scopes: string[];
  active: boolean;
  lastUsedAt: string | null;
  createdAt: string;
}

function merchantView(m: Merchant): MerchantView {
  return { id: m.id, name: m.name, email: m.email, document: m.document, type: m.type, active: m.active };
}

function credentialView(c: ApiCredential): CredentialView {
  return {
    clientId: c.clientId,
    merchantId: c.merchantId!,
    name: c.name ?? null,
    scopes: c.scopes,
    active: c.active,
    lastUsedAt: c.lastUsedAt?.toISOString() ?? null,
    createdAt: c.createdAt.toISOString(),
  };
}

export class DashboardService {
  constructor(private readonly deps: { sequelize: Sequelize; encryptionKey: string }) {}

  /**
   * The merchant the user owns, created (with the user as owner) on the first call. The user's
   * row is locked for the transaction, so concurrent calls by one user queue up and only the
   * first creates; the others find its merchant. Later calls answer it unchanged.
   */
  async ensureMerchant(user: User, input: EnsureMerchant): Promise<MerchantView & { created: boolean }> {
    return this.deps.sequelize.transaction(async (transaction) => {
      await User.findByPk(user.id, { transaction, lock: transaction.LOCK.UPDATE });
      const owned = await MerchantMember.findOne({
        where: { userId: user.id, role: 'owner' },
        order: [['createdAt', 'ASC']],
        transaction,
      });
      const existing = owned ? await Merchant.findByPk(owned.merchantId, { transaction }) : null;
      if (existing) return { ...merchantView(existing), created: false };
      const merchant = await Merchant.create(
        {
          id: crypto.randomUUID(),
          name: input.name,
          email: user.email,
          document: onlyDigits(input.document),
          documentType: documentType(input.document),
          type: input.type,
          pixFeeBps: null,
          pixFeeFixedCents: null,
        },
        { transaction },
      );
      await MerchantMember.create({ userId: user.id, merchantId: merchant.id, role: 'owner' }, { transaction });
      return { ...merchantView(merchant), created: true };
    });
  }

  /** The merchant the user owns, else the first they joined; 404 MERCHANT_NOT_FOUND when none. */
  async myMerchant(userId: string): Promise<MerchantView> {
    const memberships = await MerchantMember.findAll({ where: { userId }, order: [['createdAt', 'ASC']] });
    const primary = memberships.find((m) => m.role === 'owner') ?? memberships[0];
    const merchant = primary ? await Merchant.findByPk(primary.merchantId) : null;
    if (!merchant) throw dashboardErrors.noMerchant();
    return merchantView(merchant);
  }

  /**
   * The checkout page's logo and colour (owners and admins). Fields left out stay as they are;
   * null clears one. Raw SQL: the columns are read only by the page and this route.
   */
  async updateBranding(
    userId: string,
    input: Branding,
  ): Promise<MerchantView & { logoUrl: string | null; color: string | null }> {
    await requireRole(userId, input.merchantId, MANAGERS);
    const sets: string[] = [];
    if (input.logoUrl !== undefined) sets.push('brand_logo_url = :logoUrl');
    if (input.color !== undefined) sets.push('brand_color = :color');
    if (sets.length > 0) {
      await this.deps.sequelize.query(`UPDATE merchants SET ${sets.join(', ')}, updated_at = now() WHERE id = :id`, {
        replacements: {
          id: input.merchantId,
          logoUrl: input.logoUrl ?? null,
          color: input.color?.toLowerCase() ?? null,
        },
      });
    }
    const merchant = await Merchant.findByPk(input.merchantId);
    if (!merchant) throw dashboardErrors.noMerchant();
    const [brand] = await this.deps.sequelize.query<{ brand_logo_url: string | null; brand_color: string | null }>(
      'SELECT brand_logo_url, brand_color FROM merchants WHERE id = :id',
      { replacements: { id: input.merchantId }, type: QueryTypes.SELECT },
    );
    return { ...merchantView(merchant), logoUrl: brand.brand_logo_url, color: brand.brand_color };
  }

  /** Owners and admins only; the caller has already checked the second factor (handler.ts). */
  async createCredential(userId: string, input: NewDashboardCredential): Promise<IssuedCredential> {
    await requireRole(userId, input.merchantId, MANAGERS);
    return createApiCredential(
      { merchantId: input.merchantId, scopes: input.scopes, name: input.name },
      this.deps.encryptionKey,
    );
  }

  async checkCanCreateCredential(userId: string, merchantId: string): Promise<void> {
    await requireRole(userId, merchantId, MANAGERS);
  }

  /** Any member may list; newest first; never the secret. */
  async listCredentials(userId: string, q: { merchantId: string; limit: number; offset: number }) {
    await requireRole(userId, q.merchantId, ANY_ROLE);
    const { rows, count } = await ApiCredential.findAndCountAll({
      where: { merchantId: q.merchantId },
      order: [
        ['createdAt', 'DESC'],
        ['id', 'ASC'],
      ],
      limit: q.limit,
      offset: q.offset,
    });
    return {
      data: rows.map(credentialView),
      pagination: { total: count, limit: q.limit, offset: q.offset, hasMore: q.offset + rows.length < count },
    };
  }

  /**
   * Owners and admins; the credential stops working at once (seller routes answer 401
   * INVALID_CREDENTIALS). Another merchant's credential, or one of a merchant the user is not a
   * member of, answers 404 CREDENTIAL_NOT_FOUND. Revoking twice is harmless.
   */
  async revokeCredential(
    userId: string,
    clientId: string,
  ): Promise<{ message: string; clientId: string; active: false }> {
    const credential = await ApiCredential.findOne({ where: { clientId } });
    const member = credential?.merchantId
      ? await MerchantMember.findOne({ where: { userId, merchantId: credential.merchantId } })
      : null;
    if (!credential || !member) throw dashboardErrors.credentialNotFound();
    await requireRole(userId, credential.merchantId!, MANAGERS);
    if (credential.active) await credential.update({ active: false });
    return { message: 'credential revoked', clientId, active: false };
  }
}
