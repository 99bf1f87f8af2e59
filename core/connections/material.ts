/**
 * A PSP connection's secret material: what one envelope (core/crypto/envelope.ts) holds. The
 * client secret, the client certificate's identity (a PEM certificate and key, or PKCS#12 bytes and
 * their passphrase) and, when the PSP's server certificate is not publicly trusted, its CA: kept
 * with the rest so that a rotation changes them together.
 */
import crypto from 'node:crypto';
import tls from 'node:tls';
import { z } from 'zod';
import { ClientTls, clientTlsProblems, type ClientIdentity, type ClientTlsNames } from '../net/clientTls';

export type ConnectionMaterial = {
  clientSecret: string;
  identity: ClientIdentity;
  /** Extra CA certificates (PEM) trusted for the PSP's server, or null: the public roots only. */
  ca: Buffer | null;
};

/**
 * The material as handed over (files the CLI read, a request body the API decoded), proven usable
 * before anything is sealed or stored: a key that does not match its certificate, a PKCS#12 that
 * does not open, a CA bundle without a certificate are problems named by `names`, never quoted.
 */
export function checkedMaterial(
  given: ConnectionMaterial,
  names: ClientTlsNames,
): { material: ConnectionMaterial; problems: [] } | { material: null; problems: string[] } {
  const problems = clientTlsProblems(given.identity, given.ca, names);
  return problems.length ? { material: null, problems } : { material: given, problems: [] };
}

/**
 * What a rotation replaces: the client secret, the client certificate (with its key), the CA, or
 * several; what is not given is kept from the active material (`ca: null` drops the extra CA).
 */
export interface MaterialChange {
  clientSecret?: string;
  identity?: ClientIdentity;
  ca?: Buffer | null;
}

/** The material a rotation makes: the active one with what the change gives in its place. */
export function changedMaterial(active: ConnectionMaterial, change: MaterialChange): ConnectionMaterial {
  return {
    clientSecret: change.clientSecret ?? active.clientSecret,
    identity: change.identity ?? active.identity,
    ca: change.ca === undefined ? active.ca : change.ca,
  };
}

/** The whole material, when the change gives every part of it (no need to open the active one). */
export function wholeMaterial(change: MaterialChange): ConnectionMaterial | null {
  const { clientSecret, identity, ca } = change;
  return clientSecret !== undefined && identity !== undefined && ca !== undefined
    ? { clientSecret, identity, ca }
    : null;
}

const storedSchema = z.strictObject({
  clientSecret: z.string().min(1),
  identity: z.discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('pem'), cert: z.string().min(1), key: z.string().min(1) }),
    z.strictObject({ kind: z.literal('pfx'), pfx: z.string().min(1), passphrase: z.string() }),
  ]),
  ca: z.string().nullable(),
});

/** The plaintext an envelope seals (JSON; binary as base64). */
export function serializeMaterial(m: ConnectionMaterial): string {
  const identity =
    m.identity.kind === 'pem'
      ? { kind: 'pem', cert: m.identity.cert.toString('base64'), key: m.identity.key.toString('base64') }
      : { kind: 'pfx', pfx: m.identity.pfx.toString('base64'), passphrase: m.identity.passphrase };
  return JSON.stringify({ clientSecret: m.clientSecret, identity, ca: m.ca?.toString('base64') ?? null });
}

export function parseMaterial(text: string): ConnectionMaterial {
  const parsed = storedSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error('the connection material is not in the expected shape');
  const { clientSecret, identity, ca } = parsed.data;
  const b = (s: string) => Buffer.from(s, 'base64');
  return {
    clientSecret,
    identity:
      identity.kind === 'pem'
        ? { kind: 'pem', cert: b(identity.cert), key: b(identity.key) }
        : { kind: 'pfx', pfx: b(identity.pfx), passphrase: identity.passphrase },
    ca: ca === null ? null : b(ca),
  };
}

export function materialTls(m: ConnectionMaterial): ClientTls {
  return new ClientTls(m.identity, m.ca);
}

/**
 * SHA-256 of the client certificate (DER), as `AB:CD:…`, what `connection show` prints so an
 * operator matches it with the PSP's portal. A PKCS#12 is opened through OpenSSL's context (Node
 * has no PKCS#12 parser of its own); null when that is not possible.
 */
export function certificateFingerprint(identity: ClientIdentity): string | null {
  try {
    if (identity.kind === 'pem') return new crypto.X509Certificate(identity.cert).fingerprint256;
    const context = tlsContext(identity);
    const der = context?.getCertificate?.();
    return der ? new crypto.X509Certificate(der).fingerprint256 : null;
  } catch {
    return null;
  }
}

function tlsContext(identity: { pfx: Buffer; passphrase: string }): { getCertificate?: () => Buffer | null } | null {
  const secure = tls.createSecureContext({ pfx: identity.pfx, passphrase: identity.passphrase });
  return (secure as unknown as { context?: { getCertificate?: () => Buffer | null } }).context ?? null;
}
