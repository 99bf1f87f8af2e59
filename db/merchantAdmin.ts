/**
 * Operator actions on merchants (CLI and test fixtures): create a merchant with its first API
 * credential. The client secret is returned once and stored only encrypted.
 */
import crypto from 'node:crypto';
import type { Sequelize } from 'sequelize';
import { encryptSecret, parseKey } from '../core/crypto/secretBox';
import { documentType, onlyDigits } from '../core/documents';
import { ApiCredential, Merchant } from './models';

export interface NewMerchant {
  name: string;
  document?: string;
  email?: string;
  payoutsEnabled?: boolean;
  pixFeeBps?: number;
  pixFeeFixedCents?: number;
  scopes?: string[];
}

export interface MerchantCredentials {
  merchantId: string;
  clientId: string;
  clientSecret: string;
}

export const DEFAULT_SCOPES = ['checkout:read', 'checkout:write', 'payouts:write', 'charges:write'];

export async function createMerchantWithCredential(sequelize: Sequelize, input: NewMerchant, encryptionKey: string): Promise<MerchantCredentials> {
  if (!input.name || input.name.trim().length < 2) throw new Error('name must have at least 2 characters');
  let docType: 'CPF' | 'CNPJ' | null = null;
  if (input.document) {
    docType = documentType(input.document);
    if (!docType) throw new Error('document must be a valid CPF or CNPJ');
  }
  const key = parseKey(encryptionKey);
  const merchantId = crypto.randomUUID();
  const clientId = `cli_${crypto.randomBytes(12).toString('hex')}`;
  const clientSecret = `sk_${crypto.randomBytes(32).toString('base64url')}`;
  await sequelize.transaction(async (transaction) => {
    await Merchant.create(
      {
        id: merchantId,
        name: input.name.trim(),
        email: input.email ?? null,
        document: input.document ? onlyDigits(input.document) : null,
        documentType: docType,
        payoutsEnabled: input.payoutsEnabled ?? false,
        pixFeeBps: input.pixFeeBps ?? null,
        pixFeeFixedCents: input.pixFeeFixedCents ?? null,
      },
      { transaction },
    );
    await ApiCredential.create(
      {
        id: crypto.randomUUID(),
        merchantId,
        clientId,
        secretCiphertext: encryptSecret(clientSecret, key),
        scopes: input.scopes ?? DEFAULT_SCOPES,
        lastUsedAt: null,
      },
      { transaction },
    );
  });
  return { merchantId, clientId, clientSecret };
}
