/**
 * A private PKI made at test time for mutual TLS: a CA, a server certificate for 127.0.0.1 and
 * localhost, and a client certificate, all signed by that CA, written as PEM files (and the
 * client's as a PKCS#12 file with a passphrase, made by `openssl pkcs12 -export`) into a fresh
 * temporary directory. Nothing is checked in and nothing outlives the run (remove()). Used by the
 * sandbox's mutual TLS tests and by the gateway's API Pix client tests alike.
 */
import crypto, { webcrypto } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as x509 from '../../sandbox/x509';
import { runTool } from './externalTools';

export interface TestKeyPairFiles {
  /** PEM text, for a TLS option that takes the contents. */
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
}

export interface TestCertificates {
  dir: string;
  ca: { cert: string; certFile: string };
  /** For 127.0.0.1 and localhost (subjectAltName), extended key usage serverAuth. */
  server: TestKeyPairFiles;
  /** Extended key usage clientAuth; also as PKCS#12 (client.p12) when asked for. */
  client: TestKeyPairFiles & { pfxFile?: string; pfxPassphrase?: string };
  /** A client certificate from another CA, which the server must refuse as it refuses none. */
  stranger: TestKeyPairFiles;
  remove(): void;
}

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

async function keyPair(): Promise<webcrypto.CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

async function privateKeyPem(keys: webcrypto.CryptoKeyPair): Promise<string> {
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
}

interface Ca {
  cert: x509.X509Certificate;
  keys: webcrypto.CryptoKeyPair;
}

async function selfSignedCa(name: string): Promise<Ca> {
  const keys = await keyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name,
    notBefore: new Date(Date.now() - DAY_MS),
    notAfter: new Date(Date.now() + 30 * DAY_MS),
    signingAlgorithm: ALGORITHM,
    keys: keys as unknown as X509Keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey as unknown as X509PublicKey),
    ],
  });
  return { cert, keys };
}

async function leaf(
  ca: Ca,
  subject: string,
  usage: x509.ExtendedKeyUsage,
  names: x509.JsonGeneralNames,
): Promise<{ cert: string; key: string }> {
  const keys = await keyPair();
  const cert = await x509.X509CertificateGenerator.create({
    subject,
    issuer: ca.cert.subject,
    notBefore: new Date(Date.now() - DAY_MS),
    notAfter: new Date(Date.now() + 30 * DAY_MS),
    publicKey: keys.publicKey as unknown as X509PublicKey,
    signingKey: ca.keys.privateKey as unknown as X509SigningKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
      new x509.ExtendedKeyUsageExtension([usage]),
      ...(names.length ? [new x509.SubjectAlternativeNameExtension(names)] : []),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
    ],
  });
  return { cert: cert.toString('pem'), key: await privateKeyPem(keys) };
}

export async function createTestCertificates(
  opts: {
    pkcs12?: boolean;
    /** More names of the server certificate besides 127.0.0.1 and localhost (a host a production config accepts). */
    serverNames?: x509.JsonGeneralNames;
  } = {},
): Promise<TestCertificates> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'test-pki-'));
  const write = (name: string, text: string) => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text, { mode: 0o600 });
    return file;
  };
  const pair = (prefix: string, made: { cert: string; key: string }): TestKeyPairFiles => ({
    ...made,
    certFile: write(`${prefix}.crt`, made.cert),
    keyFile: write(`${prefix}.key`, made.key),
  });

  const ca = await selfSignedCa('CN=pix-gateway test CA, O=pix-gateway tests');
  const caPem = ca.cert.toString('pem');
  const server = pair(
    'server',
    await leaf(ca, 'CN=localhost', x509.ExtendedKeyUsage.serverAuth, [
      { type: 'dns', value: 'localhost' },
      { type: 'ip', value: '127.0.0.1' },
      ...(opts.serverNames ?? []),
    ]),
  );
  const client = pair(
    'client',
    await leaf(ca, 'CN=pix-gateway test client, O=Loja Teste', x509.ExtendedKeyUsage.clientAuth, []),
  );
  const otherCa = await selfSignedCa('CN=some other CA');
  const stranger = pair('stranger', await leaf(otherCa, 'CN=stranger', x509.ExtendedKeyUsage.clientAuth, []));

  const certificates: TestCertificates = {
    dir,
    ca: { cert: caPem, certFile: write('ca.crt', caPem) },
    server,
    client,
    stranger,
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
  if (opts.pkcs12) {
    const pfxPassphrase = crypto.randomBytes(12).toString('hex');
    const pfxFile = path.join(dir, 'client.p12');
    await runTool(
      'openssl',
      [
        'pkcs12',
        '-export',
        '-inkey',
        client.keyFile,
        '-in',
        client.certFile,
        '-certfile',
        certificates.ca.certFile,
        '-out',
        pfxFile,
        '-passout',
        'env:PFX_PASSPHRASE',
      ],
      {
        env: { ...process.env, PFX_PASSPHRASE: pfxPassphrase },
      },
    );
    Object.assign(certificates.client, { pfxFile, pfxPassphrase });
  }
  return certificates;
}

/** The same PKI as flat file paths (the API Pix client's tests and config tests use it this way). */
export interface PkiFiles {
  dir: string;
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  clientPfxFile: string;
  pfxPassphrase: string;
}

let perProcess: Promise<PkiFiles> | undefined;

/** One PKI per process (jest worker), with the client's PKCS#12, removed when the process exits. */
export function testCertificates(): Promise<PkiFiles> {
  perProcess ??= createTestCertificates({ pkcs12: true }).then((pki) => {
    process.once('exit', () => pki.remove());
    return {
      dir: pki.dir,
      caFile: pki.ca.certFile,
      serverCertFile: pki.server.certFile,
      serverKeyFile: pki.server.keyFile,
      clientCertFile: pki.client.certFile,
      clientKeyFile: pki.client.keyFile,
      clientPfxFile: pki.client.pfxFile!,
      pfxPassphrase: pki.client.pfxPassphrase!,
    };
  });
  return perProcess;
}
