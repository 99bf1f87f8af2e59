/**
 * Passport strategy for server-to-server callers: `x-client-id` + `x-client-secret`.
 * Missing headers → 401 CREDENTIALS_REQUIRED; unknown, inactive or wrong → 401
 * INVALID_CREDENTIALS; a credential with no active merchant → 400 MERCHANT_ID_REQUIRED.
 * The decrypted secret stays on req.user (request signatures are keyed with it); never logged.
 */
import type { Request } from 'express';
import { Strategy } from 'passport-strategy';
import { apiCredentialStore, merchantStore, type Merchant } from '../../../db/identity';
import { decryptSecret, safeEqual } from '../../../core/crypto/secretBox';
import { errors } from '../../errors/apiError';

export interface AuthenticatedMerchant {
  merchantId: string;
  merchant: Merchant;
  credentialId: string;
  clientId: string;
  clientSecret: string;
  scopes: string[];
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface User extends AuthenticatedMerchant {}
  }
}

export const CLIENT_CREDENTIALS = 'client-credentials';

export class ClientCredentialsStrategy extends Strategy {
  name = CLIENT_CREDENTIALS;

  constructor(private readonly encryptionKey: Buffer) {
    super();
  }

  override authenticate(req: Request): void {
    this.verify(req).then(
      (user) => this.success(user),
      (err) => this.error(err),
    );
  }

  private async verify(req: Request): Promise<AuthenticatedMerchant> {
    const clientId = req.header('x-client-id');
    const clientSecret = req.header('x-client-secret');
    if (!clientId || !clientSecret) throw errors.credentialsRequired();
    if (clientId.length > 200 || clientSecret.length > 500) throw errors.invalidCredentials();
    const credential = await apiCredentialStore.findCredentialByClientId(clientId);
    if (!credential || !credential.active) throw errors.invalidCredentials();
    let storedSecret: string;
    try {
      storedSecret = decryptSecret(credential.secretCiphertext, this.encryptionKey);
    } catch {
      throw errors.invalidCredentials();
    }
    if (!safeEqual(storedSecret, clientSecret)) throw errors.invalidCredentials();
    const merchant = credential.merchantId ? await merchantStore.findMerchant(credential.merchantId) : null;
    if (!merchant || !merchant.active) throw errors.merchantIdRequired();
    return {
      merchantId: merchant.id,
      merchant,
      credentialId: credential.id,
      clientId,
      clientSecret: storedSecret,
      scopes: credential.scopes,
    };
  }
}
