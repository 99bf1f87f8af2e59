/**
 * A TLS client identity for mutual TLS (a PEM certificate and key, or a PKCS#12 file and its
 * passphrase) and an optional CA bundle, read from files once, at start, and proven usable there:
 * OpenSSL builds a secure context from them, so a key that does not match its certificate, a
 * wrong passphrase or a file that is not PEM is a configuration problem before the first charge,
 * not a handshake failure in the middle of one.
 *
 * The material is key material: ClientTls prints and serialises as a summary only, so a logged
 * config object carries no key, no PKCS#12 and no passphrase.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import tls from 'node:tls';
import { inspect } from 'node:util';

export type ClientIdentity =
  { kind: 'pem'; cert: Buffer; key: Buffer } | { kind: 'pfx'; pfx: Buffer; passphrase: string };

export class ClientTls {
  constructor(
    /** Null: no client certificate (a server that asks for one will refuse the connection). */
    readonly identity: ClientIdentity | null,
    /** Extra trusted CA certificates (PEM), e.g. a PSP's private CA; trusted beside the public ones. */
    readonly ca: Buffer | null,
  ) {}

  /** Options for tls.connect / undici's `connect`. */
  connectOptions(): tls.ConnectionOptions {
    const options: tls.ConnectionOptions = { rejectUnauthorized: true };
    if (this.identity?.kind === 'pem') Object.assign(options, { cert: this.identity.cert, key: this.identity.key });
    if (this.identity?.kind === 'pfx')
      Object.assign(options, { pfx: this.identity.pfx, passphrase: this.identity.passphrase });
    // Node replaces its public roots with `ca` when given: adding them back means a private CA
    // bundle can only add trust (the token endpoint may sit on a public certificate).
    if (this.ca) options.ca = [...tls.rootCertificates, this.ca.toString('utf8')];
    return options;
  }

  toJSON(): { identity: 'pem' | 'pfx' | null; ca: boolean } {
    return { identity: this.identity?.kind ?? null, ca: this.ca !== null };
  }

  [inspect.custom](): string {
    return `ClientTls ${JSON.stringify(this.toJSON())}`;
  }
}

/** Paths (or undefined) by role, each with the variable that named it, for the messages. */
export interface ClientTlsSources {
  certFile: NamedValue;
  keyFile: NamedValue;
  /** Absent: a PEM pair is the only way to give an identity. */
  pfxFile?: NamedValue;
  pfxPassphrase?: NamedValue;
  caFile: NamedValue;
}

export interface NamedValue {
  name: string;
  value: string | undefined;
}

/**
 * Reads and checks the files. Problems name variables, never values (a passphrase is one), and
 * carry OpenSSL's or the file system's error code only.
 */
export function readClientTls(src: ClientTlsSources): { tls: ClientTls | null; problems: string[] } {
  const problems: string[] = [];
  const pem = src.certFile.value !== undefined || src.keyFile.value !== undefined;
  const pfxFile = src.pfxFile ?? { name: 'pfxFile', value: undefined };
  const pfxPassphrase = src.pfxPassphrase ?? { name: 'pfxPassphrase', value: undefined };
  const pfx = pfxFile.value !== undefined || pfxPassphrase.value !== undefined;
  if (pem && pfx) {
    problems.push(
      `set either ${src.certFile.name} + ${src.keyFile.name} or ${pfxFile.name} + ${pfxPassphrase.name}, not both`,
    );
    return { tls: null, problems };
  }
  if (pem) pairComplete(src.certFile, src.keyFile, problems);
  // A PKCS#12 without a passphrase leaves the private key unprotected on disk: export it with one.
  if (pfx) pairComplete(pfxFile, pfxPassphrase, problems);
  if (problems.length > 0) return { tls: null, problems };

  const ca = src.caFile.value === undefined ? null : readFile(src.caFile, problems);
  let identity: ClientIdentity | null = null;
  if (pem) {
    const cert = readFile(src.certFile, problems);
    const key = readFile(src.keyFile, problems);
    if (cert && key) identity = { kind: 'pem', cert, key };
  } else if (pfx) {
    const file = readFile(pfxFile, problems);
    if (file) identity = { kind: 'pfx', pfx: file, passphrase: pfxPassphrase.value as string };
  }
  if (problems.length > 0) return { tls: null, problems };

  problems.push(
    ...clientTlsProblems(identity, ca, {
      cert: src.certFile.name,
      key: src.keyFile.name,
      pfx: pfxFile.name,
      passphrase: pfxPassphrase.name,
      ca: src.caFile.name,
    }),
  );
  if (problems.length > 0) return { tls: null, problems };
  return { tls: identity || ca ? new ClientTls(identity, ca) : null, problems };
}

/** How the caller names each part of the material (variables, flags, body fields), for the messages. */
export interface ClientTlsNames {
  cert: string;
  key: string;
  pfx: string;
  passphrase: string;
  ca: string;
}

/**
 * Whether OpenSSL accepts the material, however it arrived (files read above, a request body):
 * a CA bundle with at least one certificate, a key that matches its certificate, a PKCS#12 that
 * opens with its passphrase. Problems name parts by `names` and carry an error code, never content.
 */
export function clientTlsProblems(identity: ClientIdentity | null, ca: Buffer | null, names: ClientTlsNames): string[] {
  const problems: string[] = [];
  if (ca) {
    // OpenSSL skips what is not a certificate in a bundle without complaint: an empty trust list
    // would only show up as a handshake failure, so at least one certificate must be there.
    const noCertificate = () => {
      if (!ca.toString('utf8').includes('-----BEGIN CERTIFICATE-----'))
        throw Object.assign(new Error('no certificate'), { code: 'NO_CERTIFICATE' });
    };
    usable(
      () => (noCertificate(), tls.createSecureContext({ ca })),
      `${names.ca} is not a PEM certificate bundle`,
      problems,
    );
  }
  if (identity?.kind === 'pem') {
    usable(
      () => (
        tls.createSecureContext({ cert: identity.cert, key: identity.key }),
        keyMatches(identity.cert, identity.key)
      ),
      `${names.cert} and ${names.key} are not a PEM certificate and its private key`,
      problems,
    );
  }
  if (identity?.kind === 'pfx') {
    usable(
      () => tls.createSecureContext({ pfx: identity.pfx, passphrase: identity.passphrase }),
      `${names.pfx} cannot be opened with ${names.passphrase} (not PKCS#12, or a wrong passphrase)`,
      problems,
    );
  }
  return problems;
}

/**
 * OpenSSL keeps a key in the slot of its type and compares it with a certificate of the same type
 * only: an EC key beside an RSA certificate is accepted by createSecureContext, and the handshake
 * would then fail (or sign with no key at all). The certificate's own public key decides.
 */
function keyMatches(cert: Buffer, key: Buffer): void {
  if (!new crypto.X509Certificate(cert).checkPrivateKey(crypto.createPrivateKey(key)))
    throw Object.assign(new Error('the key is not the certificate’s'), { code: 'KEY_DOES_NOT_MATCH_CERTIFICATE' });
}

function pairComplete(a: NamedValue, b: NamedValue, problems: string[]): void {
  if (a.value === undefined) problems.push(`${a.name} is required with ${b.name}`);
  if (b.value === undefined) problems.push(`${b.name} is required with ${a.name}`);
}

function readFile(src: NamedValue, problems: string[]): Buffer | null {
  try {
    return fs.readFileSync(src.value as string);
  } catch (err) {
    problems.push(`${src.name} could not be read (${errorCode(err)})`);
    return null;
  }
}

function usable(build: () => unknown, problem: string, problems: string[]): void {
  try {
    build();
  } catch (err) {
    problems.push(`${problem} (${errorCode(err)})`);
  }
}

/** `ENOENT`, `ERR_OSSL_...`: a code says what went wrong without quoting any of the input. */
function errorCode(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && /^[A-Z0-9_]{1,80}$/.test(code) ? code : 'unusable';
}
