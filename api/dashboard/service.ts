/**
 * The dashboard's merchant and its API credentials, for a signed-in user. Every operation on a
 * merchant goes through requireRole (api/identity/auth/roles.ts) first; client secrets are returned
 * once, at creation, and stored only encrypted (db/identity/merchantAdmin.ts).
 */
import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { documentType, onlyDigits } from '../../core/documents';
import {
  apiCredentialStore,
  createApiCredential,
  memberStore,
  merchantStore,
  userStore,
  type ApiCredential,
  type IssuedCredential,
  type Merchant,
  type User,
} from '../../db/identity';
import { ApiError } from '../errors/apiError';
import { ANY_ROLE, MANAGERS, requireRole } from '../identity/auth/roles';
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
      await userStore.lockUser(user.id, transaction);
      const [owned] = await memberStore.ownershipsOf(user.id, transaction);
      const existing = owned ? await merchantStore.findMerchant(owned.merchantId, transaction) : null;
      if (existing) return { ...merchantView(existing), created: false };
      const merchant = await merchantStore.createMerchant(
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
        transaction,
      );
      await memberStore.addMember({ userId: user.id, merchantId: merchant.id, role: 'owner' }, transaction);
      return { ...merchantView(merchant), created: true };
    });
  }

  /** The merchant the user owns, else the first they joined; 404 MERCHANT_NOT_FOUND when none. */
  async myMerchant(userId: string): Promise<MerchantView> {
    const memberships = await memberStore.membershipsOf(userId);
    const primary = memberships.find((m) => m.role === 'owner') ?? memberships[0];
    const merchant = primary ? await merchantStore.findMerchant(primary.merchantId) : null;
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
    await merchantStore.setBranding(this.deps.sequelize, input.merchantId, {
      logoUrl: input.logoUrl,
      color: input.color === undefined ? undefined : (input.color?.toLowerCase() ?? null),
    });
    const merchant = await merchantStore.findMerchant(input.merchantId);
    if (!merchant) throw dashboardErrors.noMerchant();
    const brand = await merchantStore.findBranding(this.deps.sequelize, input.merchantId);
    return { ...merchantView(merchant), logoUrl: brand!.logoUrl, color: brand!.color };
  }

  /** Owners and admins only; the caller has already checked the second factor (router.ts). */
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
    const { rows, count } = await apiCredentialStore.listCredentials(q);
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
    const credential = await apiCredentialStore.findCredentialByClientId(clientId);
    const member = credential?.merchantId ? await memberStore.findMembership(userId, credential.merchantId) : null;
    if (!credential || !member) throw dashboardErrors.credentialNotFound();
    await requireRole(userId, credential.merchantId!, MANAGERS);
    if (credential.active) await apiCredentialStore.deactivateCredential(credential);
    return { message: 'credential revoked', clientId, active: false };
  }
}
