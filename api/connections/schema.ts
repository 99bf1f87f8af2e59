/**
 * Requests and answers of /dashboard/connection (router.ts): a merchant's own PSP connection. The
 * plain fields follow the rules the CLI's flags follow (core/connections/fields.ts); the secrets
 * arrive in the body (the API has no files) and are proven usable, sealed and stored by the same
 * code as the CLI's (service.ts). A validation message never quotes a value: it names the field.
 */
import { z } from 'zod';
import { accountNumber, clientId, httpsUrl, pixKey, PSP_KINDS, type Checked } from '../../core/connections/fields';
import { merchantIdField } from '../dashboard/schema';
import { text } from '../validation/text';

/**
 * A field under a shared rule: its value normalised, or the rule's problem on that field. `shape`
 * states the rule in the document (a pattern schemathesis and clients can read), so a value the
 * document calls valid passes the rule too (test/integration/schemathesis.test.ts).
 */
const ruled = (rule: (value: string) => Checked, shape: RegExp, message: string) =>
  z
    .string()
    .regex(shape, message)
    .transform((value, ctx) => {
      const result = rule(value);
      if (result.problem === undefined) return result.value;
      ctx.addIssue({ code: 'custom', message: result.problem });
      return z.NEVER;
    });

/** An https URL with a plain host name, an optional port and path: no credentials, nothing the rule refuses. */
const HTTPS_URL =
  /^https:\/\/[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*(?::(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?(?:\/[A-Za-z0-9._~-]+)*\/?$/;

const HTTPS_URL_MESSAGE = 'must be an https URL (the PSP is reached over mutual TLS)';

/** Sizes well above real material, and together under the API's 100 kB body limit. */
export const MATERIAL_LIMITS = { pem: 20_000, pfxBase64: 40_000, ca: 40_000, secret: 1_000 } as const;

const pem = (what: string, max: number) =>
  z
    .string()
    .max(max)
    .regex(/-----BEGIN [A-Z0-9 ]{1,40}-----/, `must be PEM text (${what})`);

/** The certificate (PEM pair or PKCS#12 with its passphrase) and the PSP's CA: as registered, as rotated. */
const materialFields = {
  certPem: pem('the client certificate', MATERIAL_LIMITS.pem)
    .optional()
    .meta({ description: 'The client certificate (PEM), with keyPem; or give pfxBase64 instead.' }),
  keyPem: pem('the certificate’s private key', MATERIAL_LIMITS.pem)
    .optional()
    .meta({ description: 'The certificate’s private key (PEM, unencrypted): sealed, never returned.' }),
  pfxBase64: z
    .string()
    .max(MATERIAL_LIMITS.pfxBase64)
    .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'must be base64 (the PKCS#12 file’s bytes)')
    .optional()
    .meta({ description: 'The certificate and key as PKCS#12 (the .p12 Efí issues), base64; or certPem + keyPem.' }),
  pfxPassphrase: text()
    .max(MATERIAL_LIMITS.secret)
    .optional()
    .meta({ description: 'The PKCS#12’s passphrase (empty or absent: none). Sealed, never returned.' }),
  caPem: pem('a CA certificate bundle', MATERIAL_LIMITS.ca)
    .nullable()
    .optional()
    .meta({ description: 'The PSP server’s CA (PEM), only when it is not publicly trusted.' }),
};

type CertificateFields = { certPem?: string; keyPem?: string; pfxBase64?: string; pfxPassphrase?: string };

/** The certificate is given one way (certPem with keyPem, or pfxBase64 with its passphrase); `required` when it must be given. */
function certificateGivenOneWay(b: CertificateFields, ctx: z.RefinementCtx, required: boolean): void {
  const pemGiven = b.certPem !== undefined || b.keyPem !== undefined;
  const pfxGiven = b.pfxBase64 !== undefined || b.pfxPassphrase !== undefined;
  const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (pemGiven && pfxGiven) issue('certPem', 'give the certificate one way: certPem with keyPem, or pfxBase64');
  else if (required && !pemGiven && !pfxGiven)
    issue('certPem', 'the certificate is required: certPem with keyPem, or pfxBase64');
  else if (pemGiven && (!b.certPem || !b.keyPem))
    issue(b.certPem ? 'keyPem' : 'certPem', 'certPem and keyPem go together (the certificate and its key)');
  else if (pfxGiven && !b.pfxBase64) issue('pfxBase64', 'pfxPassphrase needs pfxBase64');
}

const clientSecretField = (description: string) => text().min(1).max(MATERIAL_LIMITS.secret).meta({ description });

export const registerConnectionBody = z
  .strictObject({
    merchantId: merchantIdField(),
    pspKind: z.enum(PSP_KINDS).meta({ description: 'The PSP: `efi` (API Pix and Efí’s own routes) is the only one.' }),
    apiBaseUrl: ruled(httpsUrl, HTTPS_URL, HTTPS_URL_MESSAGE).meta({
      example: 'https://pix.api.efipay.com.br/v2',
      description: 'The PSP’s API Pix base URL (https).',
    }),
    tokenUrl: ruled(httpsUrl, HTTPS_URL, HTTPS_URL_MESSAGE).meta({
      example: 'https://pix.api.efipay.com.br/oauth/token',
      description: 'The PSP’s OAuth token URL (https).',
    }),
    clientId: ruled(clientId, /^[\x21-\x7e]{1,200}$/, 'must be 1 to 200 printable characters without spaces').meta({
      description: 'The OAuth client id the PSP issued to the merchant.',
    }),
    clientSecret: clientSecretField('The OAuth client secret: sealed at once, never returned nor logged.'),
    pixKey: ruled(
      pixKey,
      /^\s{0,8}[\x21-\x7e](?:[\x20-\x7e]{0,75}[\x21-\x7e])?\s{0,8}$/,
      'must be 1 to 77 characters',
    ).meta({
      description: 'The merchant’s Pix key at that account (where charges are paid).',
    }),
    accountNumber: ruled(
      accountNumber,
      /^\s{0,8}\d{1,20}\s{0,8}$/,
      'must be 1 to 20 digits (the account number at the PSP)',
    )
      .nullable()
      .optional()
      .meta({ description: 'The account’s number at the PSP (Efí’s `conta`): how Split Pix names it. Digits.' }),
    ...materialFields,
  })
  .superRefine((b, ctx) => certificateGivenOneWay(b, ctx, true));
export type RegisterConnection = z.output<typeof registerConnectionBody>;

/**
 * A rotation: a new client secret, a new certificate (one way, as at registration), a new CA, or
 * several; what is not given is kept. The client id, Pix key and URLs stay: changing them is a new
 * connection (revoke, then register).
 */
export const rotateConnectionBody = z
  .strictObject({
    merchantId: merchantIdField(),
    clientSecret: clientSecretField(
      'The new OAuth client secret (the client id stays): sealed at once, never returned nor logged.',
    ).optional(),
    ...materialFields,
  })
  .superRefine((b, ctx) => {
    certificateGivenOneWay(b, ctx, false);
    if (
      b.clientSecret === undefined &&
      b.certPem === undefined &&
      b.keyPem === undefined &&
      b.pfxBase64 === undefined &&
      b.pfxPassphrase === undefined &&
      b.caPem === undefined
    )
      ctx.addIssue({
        code: 'custom',
        path: ['clientSecret'],
        message:
          'give what is rotated: clientSecret, the certificate (certPem with keyPem, or pfxBase64), caPem, or several',
      });
  });
export type RotateConnection = z.output<typeof rotateConnectionBody>;

/** The names the material's problems use (core/net/clientTls.ts clientTlsProblems): the body's fields. */
export const MATERIAL_FIELDS = {
  cert: 'certPem',
  key: 'keyPem',
  pfx: 'pfxBase64',
  passphrase: 'pfxPassphrase',
  ca: 'caPem',
} as const;

export const connectionQuery = z.strictObject({ merchantId: merchantIdField() });
export const connectionActionBody = z.strictObject({ merchantId: merchantIdField() });

const testRecord = z.object({
  at: z.iso.datetime(),
  ok: z.boolean().describe('true when every step passed.'),
  token: z
    .enum(['TAKEN', 'REFUSED', 'CERTIFICATE_REFUSED', 'UNREACHABLE'])
    .describe(
      'REFUSED: the PSP refused the client id or secret; CERTIFICATE_REFUSED: it took them but refused the certificate, which is not one of that account’s.',
    ),
  webhook: z.enum(['REGISTERED', 'MISSING', 'UNKNOWN']),
  balance: z.enum(['READABLE', 'UNREADABLE', 'UNKNOWN']),
  problems: z.array(z.string()).describe('What is missing, in our words (never the PSP’s texts).'),
});
export const connectionTestView = testRecord;

export const connectionView = z.object({
  id: z.uuid(),
  merchantId: z.uuid(),
  pspKind: z.enum(PSP_KINDS),
  status: z.enum(['ACTIVE', 'REVOKED']),
  apiBaseUrl: z.string(),
  tokenUrl: z.string(),
  clientId: z.string(),
  pixKey: z.string(),
  accountNumber: z.string().nullable(),
  certificateFingerprint: z
    .string()
    .nullable()
    .describe('SHA-256 of the client certificate (AB:CD:…); null when the PKCS#12 could not be read for it.'),
  masterKeyId: z.string().describe('The id of the master key the secrets are sealed under (not the key).'),
  rotationPending: z.boolean(),
  lastTest: testRecord.nullable().describe('The last test of the connection; null before the first.'),
  createdAt: z.iso.datetime(),
  revokedAt: z.iso.datetime().nullable(),
});

export const webhookRegistrationView = z.object({
  connectionId: z.uuid(),
  pixKey: z.string(),
  outcome: z.enum(['registered', 'already registered']),
  url: z
    .string()
    .describe('The notification URL registered, with its secret segment shown as `…` (the PSP appends /pix).'),
});
