/**
 * A throwaway PKI for mutual-TLS tests, made with `openssl` at test time (nothing committed):
 * a CA, a server certificate for 127.0.0.1 / localhost and a client certificate, both signed
 * by it, and the client's identity again as a PKCS#12 file with a passphrase. P-256 keys, one
 * day of validity. Made once per process (jest worker) and removed when it exits.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export interface TestCertificates {
  dir: string;
  caFile: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  clientPfxFile: string;
  pfxPassphrase: string;
}

const run = promisify(execFile);
let made: Promise<TestCertificates> | undefined;

export function testCertificates(): Promise<TestCertificates> {
  made ??= make();
  return made;
}

async function make(): Promise<TestCertificates> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'test-pki-'));
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => run('openssl', args, { cwd: dir });
  const newKey = (name: string) => openssl('genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', file(name));

  await newKey('ca.key');
  await openssl('req', '-x509', '-new', '-key', file('ca.key'), '-out', file('ca.crt'), '-days', '1', '-subj', '/CN=Test PSP CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');

  const leaf = async (name: string, subject: string, extensions: string) => {
    await newKey(`${name}.key`);
    await openssl('req', '-new', '-key', file(`${name}.key`), '-out', file(`${name}.csr`), '-subj', subject);
    fs.writeFileSync(file(`${name}.ext`), extensions);
    await openssl('x509', '-req', '-in', file(`${name}.csr`), '-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-CAcreateserial',
      '-out', file(`${name}.crt`), '-days', '1', '-extfile', file(`${name}.ext`));
  };
  await leaf('server', '/CN=127.0.0.1', 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n');
  await leaf('client', '/CN=gateway-test-client', 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=clientAuth\n');

  const pfxPassphrase = crypto.randomBytes(18).toString('base64url');
  // The passphrase through the environment, not argv: other processes can read command lines.
  await run('openssl', ['pkcs12', '-export', '-in', file('client.crt'), '-inkey', file('client.key'), '-certfile', file('ca.crt'), '-out', file('client.p12'), '-passout', 'env:TEST_PFX_PASSPHRASE'], {
    cwd: dir,
    env: { ...process.env, TEST_PFX_PASSPHRASE: pfxPassphrase },
  });

  return {
    dir,
    caFile: file('ca.crt'),
    serverCertFile: file('server.crt'),
    serverKeyFile: file('server.key'),
    clientCertFile: file('client.crt'),
    clientKeyFile: file('client.key'),
    clientPfxFile: file('client.p12'),
    pfxPassphrase,
  };
}
