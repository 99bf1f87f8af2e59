/**
 * Signs the payload a location serves, as the Manual de Segurança do Pix asks of a receiving PSP:
 * a compact JWS with alg PS256 whose protected header names the key (kid), the signing
 * certificate (x5t: base64url SHA-1 of its DER) and where its key set is published (jku, on the
 * location's own host), the set carrying the certificate chain (x5c). The RSA key and its
 * self-signed certificate are made once, when the server starts (sandbox/server.ts calls
 * prepare()) or, in tests, when a location is first read, since most tests never read one and an
 * RSA key costs CPU; they live only in memory: nothing secret is written or logged, and a restart
 * simply publishes a new key set.
 */
import { createHash, createPrivateKey, createPublicKey, webcrypto, type KeyObject } from 'node:crypto';
import * as x509 from '../x509';
import { CompactSign, calculateJwkThumbprint, exportJWK, type JWK } from 'jose';

export interface LocationSigner {
  /** Makes the key now (instead of on the first call). */
  prepare(): Promise<void>;
  /** The compact JWS of `payload`, its header pointing at `jku`. */
  sign(payload: unknown, jku: string): Promise<string>;
  /** The published key set: {keys: [the public key with kid, use, alg, x5t and x5c]}. */
  jwks(): Promise<{ keys: JWK[] }>;
}

interface SigningKey {
  privateKey: KeyObject;
  jwk: JWK;
  kid: string;
  x5t: string;
}

export function createLocationSigner(): LocationSigner {
  let made: Promise<SigningKey> | undefined;
  const key = () => (made ??= makeSigningKey());
  return {
    async prepare() {
      await key();
    },
    async sign(payload, jku) {
      const { privateKey, kid, x5t } = await key();
      return new CompactSign(Buffer.from(JSON.stringify(payload), 'utf8'))
        .setProtectedHeader({ alg: 'PS256', typ: 'JWS', kid, x5t, jku })
        .sign(privateKey);
    },
    async jwks() {
      return { keys: [(await key()).jwk] };
    },
  };
}

/** The key pair type @peculiar/x509 takes (WebCrypto's; Node's webcrypto makes it, typed on its own). */
type X509Keys = x509.X509CertificateCreateSelfSignedParams['keys'];

async function makeSigningKey(): Promise<SigningKey> {
  // RSASSA-PKCS1-v1_5 signs the certificate (the algorithm every X.509 stack reads); the same RSA
  // key signs the JWS with PSS (PS256), which an rsaEncryption certificate allows.
  const algorithm = {
    name: 'RSASSA-PKCS1-v1_5',
    hash: 'SHA-256',
    publicExponent: new Uint8Array([1, 0, 1]),
    modulusLength: 2048,
  };
  const keys = (await webcrypto.subtle.generateKey(algorithm, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  // @peculiar/x509 uses the platform's WebCrypto (globalThis.crypto, Node's webcrypto).
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: 'CN=Pix Sandbox PSP payload locations, O=pix-gateway sandbox, C=BR',
    notBefore: new Date(now - 3_600_000),
    notAfter: new Date(now + 365 * 86_400_000),
    signingAlgorithm: algorithm,
    keys: keys as unknown as X509Keys,
    extensions: [new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true)],
  });
  const der = Buffer.from(cert.rawData);
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const privateKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
  const publicJwk = await exportJWK(createPublicKey(privateKey));
  const kid = await calculateJwkThumbprint(publicJwk);
  const x5t = createHash('sha1').update(der).digest('base64url');
  return {
    privateKey,
    kid,
    x5t,
    jwk: { ...publicJwk, kid, use: 'sig', alg: 'PS256', x5t, x5c: [der.toString('base64')] },
  };
}
