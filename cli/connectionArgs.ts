/**
 * The arguments of `gateway connection …` (a merchant's own PSP connection), checked before any
 * file, database or PSP is touched. Secrets are named by file only: a value on the command line
 * would be visible to every user of the host (`ps`) and kept in shell history.
 */
import { parseArgs } from 'node:util';
import { accountNumber, clientId, httpsUrl, pixKey, type Checked } from '../core/connections/fields';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Where the certificate comes from: a PEM pair, or a PKCS#12 file with its optional passphrase file. */
export type CertificateFiles =
  { kind: 'pem'; certFile: string; keyFile: string } | { kind: 'pfx'; pfxFile: string; passphraseFile: string | null };

export interface SecretFiles {
  clientSecretFile: string;
  certificate: CertificateFiles;
  /** The PSP server's CA (PEM), when it is not publicly trusted. */
  caFile: string | null;
}

export type ConnectionCommand =
  | {
      action: 'register';
      merchantId: string;
      json: boolean;
      pspKind: 'efi';
      apiBaseUrl: string;
      tokenUrl: string;
      clientId: string;
      pixKey: string;
      /** The account's number at the PSP (Efí's `conta`): how another account's Split Pix names it; null when not given. */
      accountNumber: string | null;
      files: SecretFiles;
    }
  | { action: 'rotate'; merchantId: string; json: boolean; files: SecretFiles }
  | { action: 'show' | 'test' | 'revoke' | 'webhook'; merchantId: string; json: boolean };

export const connectionUsage = `usage:
  npm run gateway -- connection register --merchant <merchantId> --psp efi --api-base-url <url> --token-url <url>
                      --client-id <id> --client-secret-file <file> --pix-key <key> [--account-number <digits>]
                      (--cert-file <file> --key-file <file> | --pfx-file <file> [--pfx-passphrase-file <file>])
                      [--ca-file <file>] [--json]
  npm run gateway -- connection show --merchant <merchantId> [--json]
  npm run gateway -- connection test --merchant <merchantId> [--json]
  npm run gateway -- connection rotate --merchant <merchantId> --client-secret-file <file>
                      (--cert-file <file> --key-file <file> | --pfx-file <file> [--pfx-passphrase-file <file>])
                      [--ca-file <file>] [--json]
  npm run gateway -- connection revoke --merchant <merchantId> [--json]
  npm run gateway -- connection webhook --merchant <merchantId> [--json]
                      (registers <PUBLIC_BASE_URL>/webhooks/pix-api/connections/<id>/<secret> at the merchant's
                      PSP for the connection's Pix key; the secret is never printed)
  Secrets are read from files only, never from the command line.`;

const OPTIONS = {
  merchant: { type: 'string' },
  psp: { type: 'string' },
  'api-base-url': { type: 'string' },
  'token-url': { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret-file': { type: 'string' },
  'cert-file': { type: 'string' },
  'key-file': { type: 'string' },
  'pfx-file': { type: 'string' },
  'pfx-passphrase-file': { type: 'string' },
  'ca-file': { type: 'string' },
  'pix-key': { type: 'string' },
  'account-number': { type: 'string' },
  json: { type: 'boolean', default: false },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; strict: true }>>['values'];

const FOR_REGISTER = ['psp', 'api-base-url', 'token-url', 'client-id', 'pix-key'] as const;
const SECRET_FLAGS = ['client-secret-file', 'cert-file', 'key-file', 'pfx-file', 'pfx-passphrase-file', 'ca-file'];

export function parseConnectionArgs(action: string | undefined, argv: string[]): ConnectionCommand {
  if (!['register', 'show', 'test', 'rotate', 'revoke', 'webhook'].includes(action ?? ''))
    throw new Error(`connection needs one of register, show, test, rotate, revoke, webhook\n${connectionUsage}`);
  let values: Values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, strict: true }));
  } catch (err) {
    throw new Error(`connection ${action}: ${(err as Error).message.split('\n')[0]}`);
  }
  const merchantId = values.merchant;
  if (!merchantId) throw new Error(`connection ${action}: --merchant <merchantId> is required`);
  if (!UUID.test(merchantId)) throw new Error(`connection ${action}: --merchant must be a merchant id (a UUID)`);
  const json = values.json;
  const given = (names: readonly string[]) => names.filter((n) => values[n as keyof Values] !== undefined);

  if (action === 'register') {
    const missing = FOR_REGISTER.filter((n) => !values[n]);
    if (missing.length) throw new Error(`connection register: ${missing.map((n) => `--${n}`).join(', ')} required`);
    if (values.psp !== 'efi') throw new Error('connection register: --psp must be efi (the only PSP kind supported)');
    return {
      action,
      merchantId,
      json,
      pspKind: 'efi',
      apiBaseUrl: checked(httpsUrl, values['api-base-url']!, '--api-base-url'),
      tokenUrl: checked(httpsUrl, values['token-url']!, '--token-url'),
      clientId: checked(clientId, values['client-id']!, '--client-id'),
      pixKey: checked(pixKey, values['pix-key']!, '--pix-key'),
      accountNumber:
        values['account-number'] === undefined
          ? null
          : checked(accountNumber, values['account-number'], '--account-number'),
      files: secretFiles(action, values),
    };
  }
  if (action === 'rotate') {
    const notHere = given([...FOR_REGISTER, 'account-number']);
    if (notHere.length)
      throw new Error(
        `connection rotate changes the secrets only: ${notHere.map((n) => `--${n}`).join(', ')} not accepted (revoke and register again to change them)`,
      );
    return { action, merchantId, json, files: secretFiles(action, values) };
  }
  const extra = given([...FOR_REGISTER, 'account-number', ...SECRET_FLAGS]);
  if (extra.length) throw new Error(`connection ${action} takes only --merchant and --json`);
  return { action: action as 'show' | 'test' | 'revoke' | 'webhook', merchantId, json };
}

function secretFiles(action: string, values: Values): SecretFiles {
  const clientSecretFile = values['client-secret-file'];
  if (!clientSecretFile) throw new Error(`connection ${action}: --client-secret-file <file> is required`);
  const pem = values['cert-file'] !== undefined || values['key-file'] !== undefined;
  const pfx = values['pfx-file'] !== undefined || values['pfx-passphrase-file'] !== undefined;
  if (pem && pfx)
    throw new Error(
      `connection ${action}: give the certificate one way, --cert-file with --key-file or --pfx-file, not both`,
    );
  if (!pem && !pfx)
    throw new Error(`connection ${action}: the certificate is required: --cert-file with --key-file, or --pfx-file`);
  let certificate: CertificateFiles;
  if (pem) {
    if (!values['cert-file'] || !values['key-file'])
      throw new Error(`connection ${action}: --cert-file and --key-file go together (the certificate and its key)`);
    certificate = { kind: 'pem', certFile: values['cert-file'], keyFile: values['key-file'] };
  } else {
    if (!values['pfx-file']) throw new Error(`connection ${action}: --pfx-passphrase-file needs --pfx-file`);
    certificate = { kind: 'pfx', pfxFile: values['pfx-file'], passphraseFile: values['pfx-passphrase-file'] ?? null };
  }
  return { clientSecretFile, certificate, caFile: values['ca-file'] ?? null };
}

/** A field's value under the rules the API shares (core/connections/fields.ts), or its problem named by its flag. */
function checked(rule: (text: string) => Checked, text: string, flag: string): string {
  const result = rule(text);
  if (result.problem !== undefined) throw new Error(`${flag} ${result.problem}`);
  return result.value;
}
