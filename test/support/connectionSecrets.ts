/**
 * Every form a PSP connection's secret could take in a stored row, an answer or a log line: the
 * client secret (as is, base64), the private key (its PEM marker, a line of its body, its base64)
 * and the PKCS#12 passphrase. Used by the CLI's and the application API's connection tests.
 */
import fs from 'node:fs';

export interface ConnectionSecrets {
  clientSecrets: string[];
  keyFile: string;
  passphrases?: string[];
}

/** The forms of `secrets` found in `text` (empty: none). */
export function secretsIn(text: string, secrets: ConnectionSecrets): string[] {
  const keyPem = fs.readFileSync(secrets.keyFile, 'utf8');
  const keyBody = keyPem.split('\n').find((line) => line.length > 40 && !line.startsWith('-----'))!;
  const forms = [
    ...secrets.clientSecrets.flatMap((s) => [s, Buffer.from(s).toString('base64')]),
    'PRIVATE KEY',
    keyBody,
    Buffer.from(keyPem).toString('base64').slice(0, 60),
    ...(secrets.passphrases ?? []),
  ];
  return forms.filter((form) => text.includes(form));
}
