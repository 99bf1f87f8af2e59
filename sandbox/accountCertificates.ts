/**
 * A client certificate per account, as Efí issues them: a certificate belongs to one account of
 * the PSP (its applications may share it), and a token request or an API call whose mutual-TLS
 * certificate is not one of the account's is refused. The sandbox makes the certificate and its
 * key when the account is made (POST /sandbox/accounts answers both, once) and the account keeps
 * only the certificate's SHA-256, its pin: the key is never stored, like the client secret.
 *
 * Signed by the CA the sandbox is given (createSandboxApp's accountCa; sandbox/server.ts gives the
 * mutual-TLS client CA with SANDBOX_TLS_CLIENT_CA_KEY_FILE), so the handshake accepts it; without
 * one, by a CA of its own made on first use, in memory: enough over plain http, where no
 * handshake checks the chain and no certificate is compared (presentedCertificateSha256 is null).
 * The default account pins none: any certificate the client CA signed opens it, as before.
 */
import type { Request } from 'express';
import type { TLSSocket } from 'node:tls';
import {
  certificateAuthorityFromPem,
  certificateSha256,
  createCertificateAuthority,
  ExtendedKeyUsage,
  issueCertificate,
  type CertificateAuthority,
} from './pki';

/** PEM certificate and PKCS#8 PEM private key of the CA that signs the accounts' certificates. */
export interface AccountCaPem {
  cert: string;
  key: string;
}

export interface IssuedAccountCertificate {
  /** PEM. */
  certificate: string;
  /** PKCS#8 PEM: answered once, never kept. */
  privateKey: string;
  /** SHA-256 of the certificate's DER, lower-case hex: the account's pin. */
  sha256: string;
}

/** Long enough for any sandbox's life; a real PSP's would expire sooner. */
const VALIDITY_DAYS = 3 * 365;

export class AccountCertificates {
  private ca: Promise<CertificateAuthority> | null = null;

  constructor(private readonly given?: AccountCaPem) {}

  /** Loads (or makes) the CA now: a wrong CA key fails the start, not the first account. */
  prepare(): Promise<void> {
    return this.authority().then(() => undefined);
  }

  /** The CA certificate (PEM) the accounts' certificates chain to. */
  async caPem(): Promise<string> {
    return (await this.authority()).pem;
  }

  async issue(clientId: string): Promise<IssuedAccountCertificate> {
    const made = await issueCertificate(await this.authority(), {
      subject: `CN=${clientId}, O=pix sandbox account`,
      usages: [ExtendedKeyUsage.clientAuth],
      days: VALIDITY_DAYS,
    });
    return { certificate: made.cert, privateKey: made.key, sha256: certificateSha256(made.cert) };
  }

  private authority(): Promise<CertificateAuthority> {
    this.ca ??= this.given
      ? certificateAuthorityFromPem(this.given.cert, this.given.key)
      : createCertificateAuthority('CN=pix sandbox accounts CA, O=pix sandbox', VALIDITY_DAYS);
    return this.ca;
  }
}

/**
 * SHA-256 (hex) of the client certificate the request's connection presented in its mutual-TLS
 * handshake, or null: plain http, or https without a client certificate (no client CA).
 */
export function presentedCertificateSha256(req: Request): string | null {
  const socket = req.socket as Partial<TLSSocket>;
  if (!socket.encrypted || typeof socket.getPeerCertificate !== 'function') return null;
  const raw = socket.getPeerCertificate().raw as Buffer | undefined;
  return raw && raw.length > 0 ? certificateSha256(raw) : null;
}

/**
 * Whether the request's certificate is not the one `pin` names: false when the account pins none
 * (the default account, or one made before certificates per account) or no certificate was presented.
 */
export function certificateRefused(req: Request, pin: string | null | undefined): boolean {
  if (!pin) return false;
  const presented = presentedCertificateSha256(req);
  return presented !== null && presented !== pin;
}
