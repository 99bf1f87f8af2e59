/**
 * A private PKI made at test time for mutual TLS: a CA, a server certificate for 127.0.0.1 and
 * localhost, and a client certificate, all signed by that CA, written as PEM files (and the
 * client's as a PKCS#12 file with a passphrase, made by `openssl pkcs12 -export`) into a fresh
 * temporary directory. Nothing is checked in and nothing outlives the run (remove()). Used by the
 * sandbox's mutual TLS tests and by the gateway's API Pix client tests alike. Made by
 * scripts/lib/certificates.ts, as the local Temporal PKI is. The CA's key is written too: the
 * sandbox signs each account's own client certificate with it (createSandboxApp's accountCa).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  createCertificateAuthority,
  ExtendedKeyUsage,
  issueCertificate,
  privateKeyPem,
  type GeneralNames,
} from '../../scripts/lib/certificates';
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
  /** The CA's key (PKCS#8 PEM) signs the sandbox accounts' certificates. */
  ca: { cert: string; certFile: string; key: string; keyFile: string };
  /** For 127.0.0.1 and localhost (subjectAltName), extended key usage serverAuth. */
  server: TestKeyPairFiles;
  /** Extended key usage clientAuth; also as PKCS#12 (client.p12) when asked for. */
  client: TestKeyPairFiles & { pfxFile?: string; pfxPassphrase?: string };
  /** A client certificate from another CA, which the server must refuse as it refuses none. */
  stranger: TestKeyPairFiles;
  remove(): void;
}

/** Test certificates outlive any run by far, and expire soon after. */
const DAYS = 30;

export async function createTestCertificates(
  opts: {
    pkcs12?: boolean;
    /** More names of the server certificate besides 127.0.0.1 and localhost (a host a production config accepts). */
    serverNames?: GeneralNames;
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

  const ca = await createCertificateAuthority('CN=pix-gateway test CA, O=pix-gateway tests', DAYS);
  const caPem = ca.pem;
  const caKey = await privateKeyPem(ca.keys);
  const server = pair(
    'server',
    await issueCertificate(ca, {
      subject: 'CN=localhost',
      usages: [ExtendedKeyUsage.serverAuth],
      names: [{ type: 'dns', value: 'localhost' }, { type: 'ip', value: '127.0.0.1' }, ...(opts.serverNames ?? [])],
      days: DAYS,
    }),
  );
  const client = pair(
    'client',
    await issueCertificate(ca, {
      subject: 'CN=pix-gateway test client, O=Loja Teste',
      usages: [ExtendedKeyUsage.clientAuth],
      days: DAYS,
    }),
  );
  const otherCa = await createCertificateAuthority('CN=some other CA', DAYS);
  const stranger = pair(
    'stranger',
    await issueCertificate(otherCa, { subject: 'CN=stranger', usages: [ExtendedKeyUsage.clientAuth], days: DAYS }),
  );

  const certificates: TestCertificates = {
    dir,
    ca: { cert: caPem, certFile: write('ca.crt', caPem), key: caKey, keyFile: write('ca.key', caKey) },
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
  caKeyFile: string;
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
      caKeyFile: pki.ca.keyFile,
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
