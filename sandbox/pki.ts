/**
 * X.509 certificates made with Node's WebCrypto and @peculiar/x509: a self-signed CA and the leaf
 * certificates it signs, as PEM text (PKCS#8 keys). The one maker of the project's private PKIs:
 * the sandbox's certificate per account (accountCertificates.ts), the tests'
 * (test/support/testCertificates.ts) and the local Temporal PKI that `npm start`, docker-compose
 * and the smoke set use (scripts/lib/temporalCertificates.ts, through scripts/lib/certificates.ts).
 * It lives in sandbox/ because the sandbox, a product folder, may not import scripts/.
 */
import { createHash, createPrivateKey, X509Certificate as NodeX509Certificate, webcrypto } from 'node:crypto';
import * as x509 from './x509';

/** The key types @peculiar/x509 takes (WebCrypto's; Node's webcrypto makes them, typed on its own). It uses globalThis.crypto. */
type X509Keys = x509.X509CertificateCreateSelfSignedParams['keys'];
type X509SigningKey = x509.X509CertificateCreateWithKeyParams['signingKey'];
type X509PublicKey = x509.X509CertificateCreateWithKeyParams['publicKey'];
const ALGORITHM = {
  name: 'RSASSA-PKCS1-v1_5',
  hash: 'SHA-256',
  publicExponent: new Uint8Array([1, 0, 1]),
  modulusLength: 2048,
};
const DAY_MS = 86_400_000;

export const ExtendedKeyUsage = x509.ExtendedKeyUsage;
export type ExtendedKeyUsage = x509.ExtendedKeyUsage;
/** Subject alternative names: `{ type: 'dns', value: 'localhost' }`, `{ type: 'ip', value: '127.0.0.1' }`. */
export type GeneralNames = x509.JsonGeneralNames;

export interface CertificateAuthority {
  cert: x509.X509Certificate;
  /** The CA certificate as PEM. */
  pem: string;
  keys: webcrypto.CryptoKeyPair;
}

export interface IssuedCertificate {
  /** PEM certificate and PKCS#8 PEM private key. */
  cert: string;
  key: string;
}

async function keyPair(): Promise<webcrypto.CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

/** A key pair's private key as PKCS#8 PEM (a CA's too: the sandbox may be given its client CA's key). */
export async function privateKeyPem(keys: webcrypto.CryptoKeyPair): Promise<string> {
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
}

/** Valid from a day ago (clocks differ) for `days`. */
function validity(days: number): { notBefore: Date; notAfter: Date } {
  return { notBefore: new Date(Date.now() - DAY_MS), notAfter: new Date(Date.now() + days * DAY_MS) };
}

/** A self-signed CA (`name`: a distinguished name, e.g. `CN=…, O=…`) that may sign leaf certificates only. */
export async function createCertificateAuthority(name: string, days: number): Promise<CertificateAuthority> {
  const keys = await keyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name,
    ...validity(days),
    signingAlgorithm: ALGORITHM,
    keys: keys as unknown as X509Keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey as unknown as X509PublicKey),
    ],
  });
  return { cert, pem: cert.toString('pem'), keys };
}

/** A leaf certificate signed by `ca`, for the given extended key usages and subject alternative names. */
export async function issueCertificate(
  ca: CertificateAuthority,
  opts: { subject: string; usages: ExtendedKeyUsage[]; names?: GeneralNames; days: number },
): Promise<IssuedCertificate> {
  const keys = await keyPair();
  const names = opts.names ?? [];
  const cert = await x509.X509CertificateGenerator.create({
    subject: opts.subject,
    issuer: ca.cert.subject,
    ...validity(opts.days),
    publicKey: keys.publicKey as unknown as X509PublicKey,
    signingKey: ca.keys.privateKey as unknown as X509SigningKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension(opts.usages),
      ...(names.length ? [new x509.SubjectAlternativeNameExtension(names)] : []),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
    ],
  });
  return { cert: cert.toString('pem'), key: await privateKeyPem(keys) };
}

/** A PEM certificate's end of validity, subject alternative names and issuer, as read back from the file. */
export function describeCertificate(pem: string): { notAfter: Date; names: string[]; issuer: string } {
  const cert = new x509.X509Certificate(pem);
  const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
  return {
    notAfter: cert.notAfter,
    names: san ? san.names.items.map((n) => n.value) : [],
    issuer: cert.issuer,
  };
}

/**
 * A CA from its PEM certificate and PKCS#8 PEM private key (RSA, as createCertificateAuthority makes
 * them), to sign more leaves; throws when the key is not an RSA PKCS#8 key or is not the certificate's.
 */
export async function certificateAuthorityFromPem(certPem: string, keyPem: string): Promise<CertificateAuthority> {
  const cert = new x509.X509Certificate(certPem);
  const privateKey = await webcrypto.subtle.importKey(
    'pkcs8',
    x509.PemConverter.decodeFirst(keyPem),
    { name: ALGORITHM.name, hash: ALGORITHM.hash },
    true,
    ['sign'],
  );
  if (!new NodeX509Certificate(certPem).checkPrivateKey(createPrivateKey(keyPem)))
    throw new Error('the CA private key is not the key of the CA certificate');
  const publicKey = (await cert.publicKey.export()) as unknown as webcrypto.CryptoKey;
  return { cert, pem: cert.toString('pem'), keys: { privateKey, publicKey } };
}

/** SHA-256 of a certificate's DER, lower-case hex: what pins a certificate (PEM text or the DER itself). */
export function certificateSha256(cert: string | Buffer): string {
  const der = typeof cert === 'string' ? Buffer.from(x509.PemConverter.decodeFirst(cert)) : cert;
  return createHash('sha256').update(der).digest('hex');
}
