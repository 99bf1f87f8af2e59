/**
 * An account at a test stack's sandbox PSP, made by POST /sandbox/accounts: its client id and
 * secret, its Pix key and number, and its own client certificate and key (PEM, also written to
 * files for the CLI's --cert-file/--key-file), which the sandbox requires of that account over
 * mutual TLS. Its client secret and key are recorded for the end-of-run secrets audit: no log
 * line may hold them.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { recordIssuedSecrets } from './testLogs';

export interface MadeSandboxAccount {
  id: string;
  clientId: string;
  clientSecret: string;
  key: string;
  keys: string[];
  conta: string;
  cnpj: string;
  name: string;
  /** Its own client certificate and PKCS#8 key, PEM. */
  certificatePem: string;
  privateKeyPem: string;
  /** SHA-256 (hex) of the certificate's DER: the sandbox's pin. */
  certificateSha256: string;
  /** The same certificate and key as files (removed when the process exits). */
  certFile: string;
  keyFile: string;
}

let filesDir: string | undefined;

function accountFilesDir(): string {
  if (!filesDir) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandbox-accounts-'));
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    filesDir = dir;
  }
  return filesDir;
}

export async function makeSandboxAccount(
  sandboxUrl: string,
  body: Record<string, unknown> = {},
): Promise<MadeSandboxAccount> {
  const res = await fetch(`${sandboxUrl}/sandbox/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST /sandbox/accounts → ${res.status}: ${text}`);
  const made = JSON.parse(text) as Omit<MadeSandboxAccount, 'certFile' | 'keyFile'>;
  recordIssuedSecrets('sandbox account client secrets and certificate keys', [made.clientSecret, made.privateKeyPem]);
  const dir = accountFilesDir();
  const certFile = path.join(dir, `${made.id}.crt`);
  const keyFile = path.join(dir, `${made.id}.key`);
  fs.writeFileSync(certFile, made.certificatePem, { mode: 0o600 });
  fs.writeFileSync(keyFile, made.privateKeyPem, { mode: 0o600 });
  return { ...made, certFile, keyFile };
}
