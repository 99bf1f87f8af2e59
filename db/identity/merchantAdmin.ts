/**
 * Operator actions on merchants (CLI and test fixtures): create a merchant with its first API
 * credential (the client secret is returned once and stored only encrypted), register the
 * merchant's own Pix key for withdrawals, freeze and unfreeze withdrawals; more credentials for an
 * existing merchant (dashboard and CLI).
 */
import crypto from 'node:crypto';
import type { Sequelize, Transaction } from 'sequelize';
import { encryptSecret, parseKey } from '../../core/crypto/secretBox';
import { documentType, onlyDigits } from '../../core/documents';
import { normalizePixKey } from '../../core/pixKeys';
import type { PixKeyType } from '../../core/provider';
import type { Merchant } from './merchant';
import { createMerchant, lockMerchant as lockMerchantRow, updateMerchant } from './merchantStore';
import { createCredential } from './apiCredentialStore';
import { ALL_SCOPES } from '../../core/identity/scopes';

export interface NewMerchant {
  name: string;
  document?: string;
  email?: string;
  payoutsEnabled?: boolean;
  pixFeeBps?: number;
  pixFeeFixedCents?: number;
  /** The merchant's own Pix key for withdrawals (type required with it). */
  pixKey?: string;
  pixKeyType?: string;
  /** Fixed fee per withdrawal, in cents (default 0). */
  withdrawalFeeCents?: number;
  scopes?: string[];
}

export interface MerchantCredentials {
  merchantId: string;
  clientId: string;
  clientSecret: string;
}

/** Every scope (core/identity/scopes.ts): a new credential keeps the full access credentials always had. */
export const DEFAULT_SCOPES = ALL_SCOPES;

export async function createMerchantWithCredential(
  sequelize: Sequelize,
  input: NewMerchant,
  encryptionKey: string,
): Promise<MerchantCredentials> {
  if (!input.name || input.name.trim().length < 2) throw new Error('name must have at least 2 characters');
  let docType: 'CPF' | 'CNPJ' | null = null;
  if (input.document) {
    docType = documentType(input.document);
    if (!docType) throw new Error('document must be a valid CPF or CNPJ');
  }
  if (
    input.withdrawalFeeCents !== undefined &&
    !(Number.isSafeInteger(input.withdrawalFeeCents) && input.withdrawalFeeCents >= 0)
  ) {
    throw new Error('withdrawal fee must be a whole number of cents, 0 or more');
  }
  if ((input.pixKey === undefined) !== (input.pixKeyType === undefined))
    throw new Error('a Pix key needs its type, and a type its key');
  const key = parseKey(encryptionKey);
  const merchantId = crypto.randomUUID();
  const clientId = `cli_${crypto.randomBytes(12).toString('hex')}`;
  const clientSecret = `sk_${crypto.randomBytes(32).toString('base64url')}`;
  await sequelize.transaction(async (transaction) => {
    await createMerchant(
      {
        id: merchantId,
        name: input.name.trim(),
        email: input.email ?? null,
        document: input.document ? onlyDigits(input.document) : null,
        documentType: docType,
        payoutsEnabled: input.payoutsEnabled ?? false,
        pixFeeBps: input.pixFeeBps ?? null,
        pixFeeFixedCents: input.pixFeeFixedCents ?? null,
        withdrawalFeeCents: input.withdrawalFeeCents ?? 0,
      },
      transaction,
    );
    if (input.pixKey !== undefined && input.pixKeyType !== undefined) {
      await applyPixKey(merchantId, { key: input.pixKey, type: input.pixKeyType }, transaction);
    }
    await createCredential(
      {
        id: crypto.randomUUID(),
        merchantId,
        clientId,
        secretCiphertext: encryptSecret(clientSecret, key),
        scopes: input.scopes ?? DEFAULT_SCOPES,
        lastUsedAt: null,
      },
      transaction,
    );
  });
  return { merchantId, clientId, clientSecret };
}

/** Why a scope list is refused, or null when it is a non-empty list of known scopes. */
export function scopeListProblem(scopes: readonly string[]): string | null {
  if (scopes.length === 0) return 'name at least one scope';
  const unknown = scopes.filter((s) => !ALL_SCOPES.includes(s));
  return unknown.length ? `unknown scope ${unknown.join(', ')}; known: ${ALL_SCOPES.join(', ')}` : null;
}

export interface NewCredential {
  merchantId: string;
  scopes: string[];
  name?: string | null;
}

export interface IssuedCredential {
  merchantId: string;
  clientId: string;
  /** Shown once to whoever asked for it; stored only encrypted. Never log. */
  clientSecret: string;
  scopes: string[];
  name: string | null;
  createdAt: Date;
}

/** One more credential for an existing merchant (dashboard, CLI). The caller checks who may ask. */
export async function createApiCredential(
  input: NewCredential,
  encryptionKey: string,
  transaction?: Transaction,
): Promise<IssuedCredential> {
  const problem = scopeListProblem(input.scopes);
  if (problem) throw new Error(problem);
  const scopes = ALL_SCOPES.filter((s) => input.scopes.includes(s));
  const clientId = `cli_${crypto.randomBytes(12).toString('hex')}`;
  const clientSecret = `sk_${crypto.randomBytes(32).toString('base64url')}`;
  const row = await createCredential(
    {
      id: crypto.randomUUID(),
      merchantId: input.merchantId,
      clientId,
      name: input.name?.trim() || null,
      secretCiphertext: encryptSecret(clientSecret, parseKey(encryptionKey)),
      scopes,
      lastUsedAt: null,
    },
    transaction,
  );
  return {
    merchantId: input.merchantId,
    clientId,
    clientSecret,
    scopes,
    name: row.name ?? null,
    createdAt: row.createdAt,
  };
}

export interface PixKeyRegistration {
  key: string;
  type: string;
  /** Defaults to the merchant's name and document: withdrawals go to the merchant's own account. */
  holderName?: string;
  holderDocument?: string;
}

export async function setMerchantPixKey(
  sequelize: Sequelize,
  merchantId: string,
  registration: PixKeyRegistration,
): Promise<{ pixKey: string; pixKeyType: PixKeyType }> {
  return sequelize.transaction((transaction) => applyPixKey(merchantId, registration, transaction));
}

async function applyPixKey(merchantId: string, registration: PixKeyRegistration, transaction: Transaction) {
  const checked = normalizePixKey(registration.type, registration.key);
  if (!checked.ok) throw new Error(`invalid Pix key: ${checked.message}`);
  const merchant = await lockMerchant(merchantId, transaction);
  let holderDocument = registration.holderDocument ? onlyDigits(registration.holderDocument) : merchant.document;
  if (holderDocument && !documentType(holderDocument)) throw new Error('holder document must be a valid CPF or CNPJ');
  if (checked.type === 'CPF' || checked.type === 'CNPJ') {
    // A document key identifies its owner: it must be the holder's own document.
    if (holderDocument && holderDocument !== checked.key)
      throw new Error(`a ${checked.type} key must be the holder's own document`);
    holderDocument = checked.key;
  }
  const holderName = registration.holderName?.trim() || merchant.name;
  if (holderName.length < 2 || holderName.length > 140) throw new Error('holder name must have 2 to 140 characters');
  await updateMerchant(
    merchant,
    {
      pixKey: checked.key,
      pixKeyType: checked.type,
      pixKeyHolderName: holderName,
      pixKeyHolderDocument: holderDocument ?? null,
    },
    transaction,
  );
  return { pixKey: checked.key, pixKeyType: checked.type };
}

/** Frozen: new withdrawals are refused (409 WITHDRAWAL_FROZEN); ones already processing finish. */
export async function setWithdrawalsFrozen(sequelize: Sequelize, merchantId: string, frozen: boolean): Promise<void> {
  await sequelize.transaction(async (transaction) => {
    // The row lock waits for any reservation in progress, so after this returns none can start.
    const merchant = await lockMerchant(merchantId, transaction);
    await updateMerchant(merchant, { withdrawalsFrozen: frozen }, transaction);
  });
}

async function lockMerchant(merchantId: string, transaction: Transaction): Promise<Merchant> {
  const merchant = await lockMerchantRow(merchantId, transaction);
  if (!merchant) throw new Error(`no merchant with id ${merchantId}`);
  return merchant;
}
