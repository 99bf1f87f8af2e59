/**
 * The PSP's accounts. The default account is the one the sandbox's configuration describes (the
 * API Pix client id and secret, SANDBOX_PIX_KEYS, the Efí opening balance) and is not stored: it
 * behaves exactly as the single account of earlier versions. More accounts are made by
 * POST /sandbox/accounts (accountRoutes.ts) and kept in the journal.
 *
 * Ownership is derived from keys, so no stored record needs an account id: a cob (and the Pix that
 * paid it) belongs to the account owning its chave, a send to the account owning its pagador.chave,
 * a webhook to the account owning its chave. What names no key of a created account (a /v1 charge,
 * a boleto, a /v1 transfer) is the default account's, as before.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Response } from 'express';
import { isValidCnpj } from '../core/documents';
import type { AccountCertificates, IssuedAccountCertificate } from './accountCertificates';
import { secretsEqual } from './auth';
import { SandboxHttpError } from './errors';
import { SANDBOX_MERCHANT } from './payer';
import type { SandboxState } from './state';

export const DEFAULT_ACCOUNT_ID = 'default';
/** The default account's number at the PSP (Efí's `conta`, which a split's favorecido names). */
export const DEFAULT_ACCOUNT_NUMBER = '1000001';

export interface SandboxAccount {
  id: string;
  clientId: string;
  /** sha256 (hex) of the client secret: neither the state nor the journal holds the secret itself. */
  clientSecretHash: string;
  /** Its Pix keys (unique across accounts). */
  keys: string[];
  /** The holder's name and CNPJ (API Pix shows the CNPJ on webhooks; the BR Code shows the name). */
  name: string;
  cnpj: string;
  /** Its number at the PSP (7 digits): Efí's `conta`, which a Split Pix favorecido names. */
  conta: string;
  openingBalanceCents: number;
  createdAt: string;
  /**
   * SHA-256 (hex) of its client certificate's DER (accountCertificates.ts): over mutual TLS, a
   * token request or call with another certificate is refused. Absent on the default account and
   * on accounts made before certificates per account: any certificate of the client CA opens them.
   */
  certificateSha256?: string;
}

export interface DefaultAccountConfig {
  clientId: string;
  clientSecret: string;
  keys: readonly string[];
  name: string;
  cnpj: string;
  openingBalanceCents: number;
}

export interface NewAccountInput {
  keys?: string[];
  name?: string;
  cnpj?: string;
  openingBalanceCents?: number;
}

export function secretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** A random check-digit-valid CNPJ (12 random digits, then the two check digits). */
export function randomCnpj(): string {
  for (;;) {
    const base = [...randomBytes(12)].map((b) => String(b % 10)).join('');
    for (let dv = 0; dv < 100; dv++) {
      const candidate = `${base}${String(dv).padStart(2, '0')}`;
      if (isValidCnpj(candidate)) return candidate;
    }
  }
}

export class SandboxAccounts {
  readonly default: SandboxAccount;

  constructor(
    private readonly state: SandboxState,
    config: DefaultAccountConfig,
  ) {
    this.default = {
      id: DEFAULT_ACCOUNT_ID,
      clientId: config.clientId,
      clientSecretHash: secretHash(config.clientSecret),
      keys: [...config.keys],
      name: config.name,
      cnpj: config.cnpj,
      conta: DEFAULT_ACCOUNT_NUMBER,
      openingBalanceCents: config.openingBalanceCents,
      createdAt: new Date(0).toISOString(),
    };
  }

  all(): SandboxAccount[] {
    return [this.default, ...this.state.accounts.values()];
  }

  get(id: string): SandboxAccount | null {
    return id === DEFAULT_ACCOUNT_ID ? this.default : (this.state.accounts.get(id) ?? null);
  }

  /** The account whose client credentials these are, or null (the secret compared in constant time). */
  authenticate(clientId: string, clientSecret: string): SandboxAccount | null {
    const found = this.all().find((a) => secretsEqual(clientId, a.clientId)) ?? null;
    // Compared even for an unknown client id, so both failures take the same time.
    const secretOk = secretsEqual(secretHash(clientSecret), found?.clientSecretHash ?? this.default.clientSecretHash);
    return found && secretOk ? found : null;
  }

  /** The account with this number (Efí's `conta`), or null. */
  byConta(conta: string): SandboxAccount | null {
    return this.all().find((a) => a.conta === conta) ?? null;
  }

  /** The created account that owns `key`, or null (the default account's keys are its configuration's). */
  createdOwnerOf(key: string): SandboxAccount | null {
    for (const account of this.state.accounts.values()) if (account.keys.includes(key)) return account;
    return null;
  }

  /** Who a record naming `key` belongs to: the created account owning it, else the default account. */
  ownerOf(key: string): SandboxAccount {
    return this.createdOwnerOf(key) ?? this.default;
  }

  owns(account: SandboxAccount, key: string): boolean {
    return this.ownerOf(key).id === account.id && account.keys.includes(key);
  }

  /**
   * A new account with its own client certificate (its secret and its certificate's key answered
   * once, here, never kept); 409 PIX_KEY_TAKEN when a key is another account's.
   */
  async create(
    input: NewAccountInput,
    now: Date,
    certificates: AccountCertificates,
  ): Promise<{ account: SandboxAccount; clientSecret: string; certificate: IssuedAccountCertificate }> {
    const keys = input.keys?.length ? [...new Set(input.keys)] : [randomUUID()];
    this.refuseTakenKeys(keys);
    const clientId = `Client_Id_${randomBytes(12).toString('base64url')}`;
    const certificate = await certificates.issue(clientId);
    // Again after the wait: another account may have taken a key meanwhile.
    this.refuseTakenKeys(keys);
    const clientSecret = `Client_Secret_${randomBytes(24).toString('base64url')}`;
    const account: SandboxAccount = {
      id: `acc_${randomBytes(9).toString('base64url')}`,
      clientId,
      clientSecretHash: secretHash(clientSecret),
      keys,
      name: input.name ?? 'CONTA SANDBOX',
      cnpj: input.cnpj ?? randomCnpj(),
      conta: this.newConta(),
      openingBalanceCents: input.openingBalanceCents ?? 0,
      createdAt: now.toISOString(),
      certificateSha256: certificate.sha256,
    };
    this.state.accounts.set(account.id, account);
    return { account, clientSecret, certificate };
  }

  private refuseTakenKeys(keys: readonly string[]): void {
    for (const key of keys)
      // The sandbox's own key names /v1 charges and boletos: always the default account's.
      if (key === SANDBOX_MERCHANT.pixKey || this.default.keys.includes(key) || this.createdOwnerOf(key))
        throw new SandboxHttpError(
          409,
          'PIX_KEY_TAKEN',
          `the Pix key ${key} already belongs to an account of this PSP`,
        );
  }

  /**
   * A new client secret for a created account, answered once: the old one takes no token from now
   * on (tokens it already took stay valid until they expire, as at a PSP). The default account's
   * secret is its configuration's: null, as for an unknown account.
   */
  rotateSecret(id: string): { account: SandboxAccount; clientSecret: string } | null {
    const known = this.state.accounts.get(id);
    if (!known) return null;
    const clientSecret = `Client_Secret_${randomBytes(24).toString('base64url')}`;
    const account = { ...known, clientSecretHash: secretHash(clientSecret) };
    this.state.accounts.set(id, account);
    return { account, clientSecret };
  }

  private newConta(): string {
    for (;;) {
      const conta = String(2_000_000 + (randomBytes(4).readUInt32BE() % 8_000_000));
      if (!this.byConta(conta)) return conta;
    }
  }
}

/** The account the request's access token was issued to (set by the token checks of API Pix and Efí). */
export function requestAccount(res: Response): SandboxAccount {
  const account = res.locals.pixAccount as SandboxAccount | undefined;
  if (!account) throw new Error('no account on the request: the token check must run first');
  return account;
}
