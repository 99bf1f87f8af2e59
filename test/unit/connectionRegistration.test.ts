/**
 * What registering a PSP connection shares between the CLI and the application API: the plain
 * fields' rules (core/connections/fields.ts), the material proven usable before it is sealed
 * (core/connections/material.ts checkedMaterial, the checks readClientTls runs on files), the
 * API's body (api/connections/schema.ts: one certificate form, https only, sizes, messages that
 * never quote a value) and what is shown of a row (db/connections/registration.ts: no secret).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { accountNumber, clientId, httpsUrl, pixKey } from '../../core/connections/fields';
import { checkedMaterial, type ConnectionMaterial } from '../../core/connections/material';
import { presentConnection } from '../../db/connections';
import type { PspConnectionRow } from '../../db/connections';
import { MATERIAL_FIELDS, registerConnectionBody } from '../../api/connections/schema';
import { createTestCertificates, type TestCertificates } from '../support/testCertificates';

let pki: TestCertificates;

beforeAll(async () => {
  pki = await createTestCertificates({ pkcs12: true });
});

afterAll(() => pki?.remove());

describe('the plain fields', () => {
  it('take https URLs only, without credentials, and drop a trailing slash', () => {
    expect(httpsUrl('https://psp.example/v2/')).toEqual({ value: 'https://psp.example/v2' });
    expect(httpsUrl('http://psp.example/v2').problem).toBe('must be an https URL (the PSP is reached over mutual TLS)');
    expect(httpsUrl('https://u:p@psp.example').problem).toBe('must not carry credentials');
    expect(httpsUrl('psp.example').problem).toBe('is not a URL');
  });

  it('trim a Pix key and an account number, and bound them', () => {
    expect(pixKey('  chave@loja.example ')).toEqual({ value: 'chave@loja.example' });
    expect(pixKey('x'.repeat(78)).problem).toBe('must be 1 to 77 characters');
    expect(accountNumber(' 123456 ')).toEqual({ value: '123456' });
    expect(accountNumber('12-34').problem).toMatch(/^must be 1 to 20 digits/);
    expect(clientId('Client_Id-1')).toEqual({ value: 'Client_Id-1' });
    expect(clientId('with space').problem).toMatch(/without spaces/);
  });
});

describe('the material, proven usable before it is sealed', () => {
  const pem = (key = pki.client.key): ConnectionMaterial => ({
    clientSecret: 's3cret',
    identity: { kind: 'pem', cert: Buffer.from(pki.client.cert), key: Buffer.from(key) },
    ca: Buffer.from(pki.ca.cert),
  });

  it('accepts a certificate with its key, and a PKCS#12 with its passphrase', () => {
    expect(checkedMaterial(pem(), MATERIAL_FIELDS)).toMatchObject({ problems: [] });
    const pfx: ConnectionMaterial = {
      clientSecret: 's3cret',
      identity: {
        kind: 'pfx',
        pfx: fs.readFileSync(pki.client.pfxFile!),
        passphrase: pki.client.pfxPassphrase!,
      },
      ca: null,
    };
    expect(checkedMaterial(pfx, MATERIAL_FIELDS)).toMatchObject({ problems: [] });
  });

  it('names the fields of a key that is not the certificate’s, a wrong passphrase and a CA without a certificate', () => {
    const wrongKey = checkedMaterial(pem(pki.stranger.key), MATERIAL_FIELDS);
    expect(wrongKey.material).toBeNull();
    expect(wrongKey.problems).toEqual([
      expect.stringMatching(/^certPem and keyPem are not a PEM certificate and its private key \([A-Z0-9_]+\)$/),
    ]);
    // A key of another type than the certificate's: OpenSSL keeps each type in its own slot and
    // does not compare them, so the mismatch must be found otherwise.
    const otherType = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const ecKey = checkedMaterial(pem(otherType.export({ type: 'pkcs8', format: 'pem' }).toString()), MATERIAL_FIELDS);
    expect(ecKey.problems).toEqual([
      'certPem and keyPem are not a PEM certificate and its private key (KEY_DOES_NOT_MATCH_CERTIFICATE)',
    ]);
    const wrongPassphrase = checkedMaterial(
      {
        clientSecret: 's',
        identity: { kind: 'pfx', pfx: fs.readFileSync(pki.client.pfxFile!), passphrase: 'not-it' },
        ca: null,
      },
      MATERIAL_FIELDS,
    );
    expect(wrongPassphrase.problems).toEqual([
      expect.stringMatching(/^pfxBase64 cannot be opened with pfxPassphrase \(not PKCS#12, or a wrong passphrase\)/),
    ]);
    const noCa = checkedMaterial({ ...pem(), ca: Buffer.from(pki.client.key) }, MATERIAL_FIELDS);
    expect(noCa.problems).toEqual(['caPem is not a PEM certificate bundle (NO_CERTIFICATE)']);
    for (const problem of [...wrongKey.problems, ...noCa.problems]) expect(problem).not.toContain('PRIVATE KEY');
  });
});

describe('the API body', () => {
  const base = () => ({
    merchantId: crypto.randomUUID(),
    pspKind: 'efi',
    apiBaseUrl: 'https://psp.example/v2/',
    tokenUrl: 'https://psp.example/oauth/token',
    clientId: 'Client_Id',
    clientSecret: 'Client_Secret_123',
    pixKey: ' chave@loja.example ',
    certPem: pki.client.cert,
    keyPem: pki.client.key,
  });
  const issues = (body: unknown) => {
    const parsed = registerConnectionBody.safeParse(body);
    return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  it('normalises the plain fields as the CLI does', () => {
    const parsed = registerConnectionBody.parse({ ...base(), accountNumber: '987' });
    expect(parsed).toMatchObject({
      apiBaseUrl: 'https://psp.example/v2',
      pixKey: 'chave@loja.example',
      accountNumber: '987',
    });
  });

  it('takes the certificate one way, complete', () => {
    const { certPem: _c, keyPem: _k, ...none } = base();
    expect(issues(none)).toEqual(['certPem: the certificate is required: certPem with keyPem, or pfxBase64']);
    expect(issues({ ...base(), pfxBase64: 'AAAA' })).toEqual([
      'certPem: give the certificate one way: certPem with keyPem, or pfxBase64',
    ]);
    expect(issues({ ...none, certPem: pki.client.cert })).toEqual([
      'keyPem: certPem and keyPem go together (the certificate and its key)',
    ]);
    expect(issues({ ...none, pfxPassphrase: 'p' })).toEqual(['pfxBase64: pfxPassphrase needs pfxBase64']);
    expect(issues({ ...none, pfxBase64: 'not base64!' })).toEqual([
      'pfxBase64: must be base64 (the PKCS#12 file’s bytes)',
    ]);
  });

  it('refuses http, another PSP kind, unknown fields and oversized material, never quoting a value', () => {
    const found = issues({
      ...base(),
      tokenUrl: 'http://psp.example/oauth/token',
      pspKind: 'stripe',
      certPem: `${pki.client.cert}${'A'.repeat(20_000)}`,
      extra: 'Client_Secret_123',
    });
    expect(found).toEqual(
      expect.arrayContaining([
        'tokenUrl: must be an https URL (the PSP is reached over mutual TLS)',
        expect.stringMatching(/^pspKind: /),
        expect.stringMatching(/^certPem: /),
        expect.stringMatching(/^: .*extra/),
      ]),
    );
    for (const issue of found) {
      expect(issue).not.toContain('Client_Secret_123');
      expect(issue).not.toContain('PRIVATE KEY');
    }
  });
});

it('shows a row without any secret nor envelope', () => {
  const row: PspConnectionRow = {
    id: crypto.randomUUID(),
    merchant_id: crypto.randomUUID(),
    psp_kind: 'efi',
    api_base_url: 'https://psp.example/v2',
    token_url: 'https://psp.example/oauth/token',
    client_id: 'Client_Id',
    pix_key: 'chave@loja.example',
    secret_envelope: 'env1:k1:SECRET',
    secret_key_id: 'k1',
    certificate_fingerprint: 'AB:CD',
    webhook_path_secret_envelope: 'env1:k1:PATH',
    webhook_path_secret_key_id: 'k1',
    pending_secret_envelope: 'env1:k1:PENDING',
    pending_secret_key_id: 'k1',
    pending_certificate_fingerprint: null,
    pending_since: new Date(),
    status: 'ACTIVE',
    account_number: null,
    last_test: null,
    revoked_at: null,
    created_at: new Date(),
    updated_at: new Date(),
  };
  const shown = JSON.stringify(presentConnection(row));
  expect(shown).not.toContain('env1:');
  expect(JSON.parse(shown)).toMatchObject({
    rotationPending: true,
    masterKeyId: 'k1',
    certificateFingerprint: 'AB:CD',
  });
});
