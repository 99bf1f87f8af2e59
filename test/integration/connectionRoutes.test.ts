/**
 * /dashboard/connection over HTTP against the shared stack: a merchant's owner registers its own
 * PSP connection (PEM or PKCS#12) with a JSON body, reads it, tests it and registers its webhook
 * through the worker (the API calls no PSP), and revokes it. Asserted: no answer and no stored row
 * holds a secret in clear; only the owner registers and revokes, with a second factor when on; a
 * second active connection is 409; bad material is a 400 naming the field. The PSP is the shared
 * stack's sandbox API Pix (its URL and test PKI are in the stack's worker environment), on a
 * sandbox account of each test's own, with that account's own client certificate.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { authenticator } from 'otplib';
import { QueryTypes } from 'sequelize';
import { MerchantMember } from '../../db/models';
import { issueActionToken } from '../../api/identity/twoFactor/actionTokens';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { signedInMerchant, signedInUser, type SignedInMerchant } from '../support/signedIn';
import { secretsIn } from '../support/connectionSecrets';
import { makeSandboxAccount, type MadeSandboxAccount } from '../support/sandboxAccounts';
import { runTool } from '../support/externalTools';

jest.setTimeout(180_000);

let stack: SharedStack;
let psp: { apiBaseUrl: string; tokenUrl: string; caFile: string };

beforeAll(async () => {
  stack = await sharedIntegrationStack();
  const env = stack.workerEnv;
  psp = {
    apiBaseUrl: env.PIX_API_BASE_URL,
    tokenUrl: env.PIX_API_TOKEN_URL,
    caFile: env.PIX_API_CA_FILE,
  };
});

afterAll(async () => {
  await stack?.stop();
});

const PATH = '/dashboard/connection';
const key = () => ({ 'x-idempotency-key': `connection-${crypto.randomUUID()}` });
const read = (file: string) => fs.readFileSync(file, 'utf8');

/** A new account at the sandbox PSP: its own client id, secret, Pix key and client certificate. */
function sandboxAccount(): Promise<MadeSandboxAccount> {
  return makeSandboxAccount(stack.sandboxUrl);
}

type Account = Awaited<ReturnType<typeof sandboxAccount>>;

function registration(merchantId: string, account: Account, extra: Record<string, unknown> = {}) {
  return {
    merchantId,
    pspKind: 'efi',
    apiBaseUrl: psp.apiBaseUrl,
    tokenUrl: psp.tokenUrl,
    clientId: account.clientId,
    clientSecret: account.clientSecret,
    pixKey: account.key,
    certPem: account.certificatePem,
    keyPem: account.privateKeyPem,
    caPem: read(psp.caFile),
    ...extra,
  };
}

function register(o: SignedInMerchant, body: unknown, headers: Record<string, string> = key()) {
  return o.client.call('POST', PATH, { body, headers });
}

const secrets = (account: Account, passphrases: string[] = []) => ({
  clientSecrets: [account.clientSecret],
  keyFile: account.keyFile,
  passphrases,
});

async function storedRow(merchantId: string): Promise<string> {
  const rows = await stack.sequelize.query<{ text: string }>(
    `SELECT row_to_json(c)::text AS text FROM psp_connections c WHERE merchant_id = :merchantId`,
    { replacements: { merchantId }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => r.text).join('\n');
}

/** Turns TOTP on for the owner; answers a function that gets one action token for "psp-connection" the way a person does. */
async function withTotp(o: SignedInMerchant): Promise<() => Promise<string>> {
  const setup = await o.client.call('POST', '/auth/2fa/totp/setup');
  const secret: string = setup.body.secret;
  let step = 0;
  // Each code once, in a later window than the last (the server refuses a step already used).
  const code = () =>
    authenticator.clone({ epoch: (Math.floor(Date.now() / 30_000) + step++) * 30_000 }).generate(secret);
  expect((await o.client.call('POST', '/auth/2fa/totp/confirm', { body: { code: code() } })).status).toBe(200);
  return async () => {
    const start = await o.client.call('POST', '/auth/2fa/action/start', { body: { action: 'psp-connection' } });
    expect(start.status).toBe(200);
    const confirm = await o.client.call('POST', '/auth/2fa/action/confirm', {
      body: { challengeId: start.body.challengeId, code: code() },
    });
    expect(confirm.status).toBe(200);
    return confirm.body.actionToken as string;
  };
}

it('registers, tests through the worker, registers the webhook and revokes, never answering or storing a secret', async () => {
  const o = await signedInMerchant(stack, { emailPrefix: 'conn', name: 'Loja Conectada' });
  const account = await sandboxAccount();
  expect((await o.client.call('GET', `${PATH}?merchantId=${o.merchantId}`)).body.error.code).toBe(
    'PSP_CONNECTION_NOT_FOUND',
  );

  const headers = key();
  const body = registration(o.merchantId, account, { accountNumber: '123456' });
  const made = await register(o, body, headers);
  expect(made.status).toBe(201);
  const certificate = new crypto.X509Certificate(account.certificatePem);
  expect(made.body).toMatchObject({
    merchantId: o.merchantId,
    status: 'ACTIVE',
    pspKind: 'efi',
    clientId: account.clientId,
    pixKey: account.key,
    accountNumber: '123456',
    certificateFingerprint: certificate.fingerprint256,
    masterKeyId: 'k1',
    rotationPending: false,
    lastTest: null,
    revokedAt: null,
  });
  const replay = await register(o, body, headers);
  expect(replay.status).toBe(201);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body.id).toBe(made.body.id);

  const shown = await o.client.call('GET', `${PATH}?merchantId=${o.merchantId}`);
  expect(shown.status).toBe(200);
  expect(shown.body).toEqual(made.body);

  // A fresh account has no webhook yet: the test says so, in our words, and is recorded.
  const first = await o.client.call('POST', `${PATH}/test`, { body: { merchantId: o.merchantId } });
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({ ok: false, token: 'TAKEN', webhook: 'MISSING', balance: 'READABLE' });
  expect(first.body.problems).toEqual([
    `no webhook is registered for the Pix key ${account.key}: the PSP would notify no payment`,
  ]);

  const hooked = await o.client.call('POST', `${PATH}/webhook`, { body: { merchantId: o.merchantId } });
  expect(hooked.status).toBe(200);
  expect(hooked.body).toEqual({
    connectionId: made.body.id,
    pixKey: account.key,
    outcome: 'registered',
    url: `${stack.apiUrl}/webhooks/pix-api/connections/${made.body.id}/…`,
  });
  const again = await o.client.call('POST', `${PATH}/webhook`, { body: { merchantId: o.merchantId } });
  expect(again.body.outcome).toBe('already registered');

  const passed = await o.client.call('POST', `${PATH}/test`, { body: { merchantId: o.merchantId } });
  expect(passed.status).toBe(200);
  expect(passed.body).toMatchObject({
    ok: true,
    token: 'TAKEN',
    webhook: 'REGISTERED',
    balance: 'READABLE',
    problems: [],
  });
  const tested = await o.client.call('GET', `${PATH}?merchantId=${o.merchantId}`);
  expect(tested.body.lastTest).toEqual(passed.body);

  const second = await register(o, registration(o.merchantId, account));
  expect(second.status).toBe(409);
  expect(second.body.error.code).toBe('PSP_CONNECTION_EXISTS');

  const revoked = await o.client.call('POST', `${PATH}/revoke`, { body: { merchantId: o.merchantId } });
  expect(revoked.status).toBe(200);
  expect(revoked.body).toMatchObject({ id: made.body.id, status: 'REVOKED', revokedAt: expect.any(String) });
  const twice = await o.client.call('POST', `${PATH}/revoke`, { body: { merchantId: o.merchantId } });
  expect(twice.status).toBe(409);
  expect(twice.body.error.code).toBe('PSP_CONNECTION_REVOKED');
  const afterRevoke = await o.client.call('POST', `${PATH}/test`, { body: { merchantId: o.merchantId } });
  expect(afterRevoke.body.error.code).toBe('PSP_CONNECTION_REVOKED');

  for (const answer of [made, replay, shown, first, hooked, again, passed, tested, second, revoked, twice]) {
    const text = JSON.stringify(answer.body);
    expect(secretsIn(text, secrets(account))).toEqual([]);
    expect(text).not.toContain('env1:');
  }
  const row = await storedRow(o.merchantId);
  expect(row).toContain('env1:k1:');
  expect(secretsIn(row, secrets(account))).toEqual([]);
});

it('registers a PKCS#12 with its passphrase; its certificate is read out of it', async () => {
  const o = await signedInMerchant(stack, { emailPrefix: 'conn-pfx' });
  const account = await sandboxAccount();
  const { pfxBase64, pfxPassphrase } = await pfxOf(account);
  const made = await register(
    o,
    registration(o.merchantId, account, { certPem: undefined, keyPem: undefined, pfxBase64, pfxPassphrase }),
  );
  expect(made.status).toBe(201);
  expect(made.body.certificateFingerprint).toBe(new crypto.X509Certificate(account.certificatePem).fingerprint256);
  const row = await storedRow(o.merchantId);
  expect(secretsIn(row, secrets(account, [pfxPassphrase]))).toEqual([]);
  expect(row).not.toContain(pfxBase64.slice(0, 60));
  expect(JSON.stringify(made.body)).not.toContain(pfxPassphrase);
});

it('refuses bad input with 400 naming the field, never quoting a secret, and stores nothing', async () => {
  const o = await signedInMerchant(stack, { emailPrefix: 'conn-bad' });
  const account = await sandboxAccount();
  const noKey = await o.client.call('POST', PATH, { body: registration(o.merchantId, account) });
  expect(noKey.status).toBe(400);
  expect(noKey.body.error.code).toBe('IDEMPOTENCY_KEY_REQUIRED');

  const http = await register(o, registration(o.merchantId, account, { tokenUrl: 'http://psp.example/oauth/token' }));
  expect(http.status).toBe(400);
  expect(http.body.error).toMatchObject({
    code: 'VALIDATION_ERROR',
    details: { fields: [{ field: 'tokenUrl', message: 'must be an https URL (the PSP is reached over mutual TLS)' }] },
  });

  const stranger = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const wrongKey = await register(
    o,
    registration(o.merchantId, account, {
      keyPem: stranger.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    }),
  );
  expect(wrongKey.status).toBe(400);
  expect(wrongKey.body.error.details.fields).toEqual([
    {
      field: 'certPem',
      message: expect.stringMatching(/^certPem and keyPem are not a PEM certificate and its private key/),
    },
  ]);

  const both = await register(o, registration(o.merchantId, account, { pfxBase64: 'AAAA' }));
  expect(both.status).toBe(400);
  expect(both.body.error.details.fields[0].field).toBe('certPem');

  for (const answer of [http, wrongKey, both])
    expect(secretsIn(JSON.stringify(answer.body), secrets(account))).toEqual([]);
  expect(await storedRow(o.merchantId)).toBe('');
});

it('lets only the owner register and revoke; every member reads; another merchant is 404', async () => {
  const o = await signedInMerchant(stack, { emailPrefix: 'conn-roles' });
  const account = await sandboxAccount();
  const admin = await signedInUser(stack, { emailPrefix: 'conn-admin' });
  const viewer = await signedInUser(stack, { emailPrefix: 'conn-viewer' });
  await MerchantMember.create({ userId: admin.userId, merchantId: o.merchantId, role: 'admin' });
  await MerchantMember.create({ userId: viewer.userId, merchantId: o.merchantId, role: 'viewer' });

  const byAdmin = await admin.client.call('POST', PATH, { body: registration(o.merchantId, account), headers: key() });
  expect(byAdmin.status).toBe(403);
  expect(byAdmin.body.error).toMatchObject({ code: 'INSUFFICIENT_ROLE', details: { allowedRoles: ['owner'] } });
  expect(await storedRow(o.merchantId)).toBe('');

  expect((await register(o, registration(o.merchantId, account))).status).toBe(201);
  const read = await viewer.client.call('GET', `${PATH}?merchantId=${o.merchantId}`);
  expect(read.status).toBe(200);
  expect(read.body.status).toBe('ACTIVE');
  const viewerTest = await viewer.client.call('POST', `${PATH}/test`, { body: { merchantId: o.merchantId } });
  expect(viewerTest.body.error.code).toBe('INSUFFICIENT_ROLE');
  const adminRevoke = await admin.client.call('POST', `${PATH}/revoke`, { body: { merchantId: o.merchantId } });
  expect(adminRevoke.status).toBe(403);
  expect(adminRevoke.body.error.code).toBe('INSUFFICIENT_ROLE');

  const other = await signedInMerchant(stack, { emailPrefix: 'conn-other' });
  for (const call of [
    other.client.call('GET', `${PATH}?merchantId=${o.merchantId}`),
    other.client.call('POST', `${PATH}/revoke`, { body: { merchantId: o.merchantId } }),
    other.client.call('POST', PATH, { body: registration(o.merchantId, account), headers: key() }),
  ]) {
    const answer = await call;
    expect(answer.status).toBe(404);
    expect(answer.body.error.code).toBe('MERCHANT_NOT_FOUND');
  }
  expect(
    await stack.sequelize.query(`SELECT status FROM psp_connections WHERE merchant_id = :id`, {
      replacements: { id: o.merchantId },
      type: QueryTypes.SELECT,
    }),
  ).toEqual([{ status: 'ACTIVE' }]);
});

it('asks an owner with a second factor for it to register and to revoke', async () => {
  const o = await signedInMerchant(stack, { emailPrefix: 'conn-2fa' });
  const account = await sandboxAccount();
  const actionToken = await withTotp(o);

  const headers = key();
  const without = await register(o, registration(o.merchantId, account), headers);
  expect(without.status).toBe(403);
  expect(without.body.error).toMatchObject({ code: 'SECOND_FACTOR_REQUIRED', details: { action: 'psp-connection' } });
  expect(await storedRow(o.merchantId)).toBe('');
  const made = await register(o, registration(o.merchantId, account), {
    ...headers,
    'x-action-token': await actionToken(),
  });
  expect(made.status).toBe(201);

  const revokeWithout = await o.client.call('POST', `${PATH}/revoke`, { body: { merchantId: o.merchantId } });
  expect(revokeWithout.status).toBe(403);
  expect(revokeWithout.body.error.code).toBe('SECOND_FACTOR_REQUIRED');
  // A TOTP code works once and the next window's is spent: this token is issued as confirm issues it.
  const { actionToken: revokeToken } = await issueActionToken(o.userId, 'psp-connection');
  const revoked = await o.client.call('POST', `${PATH}/revoke`, {
    body: { merchantId: o.merchantId },
    headers: { 'x-action-token': revokeToken },
  });
  expect(revoked.status).toBe(200);
  expect(revoked.body.status).toBe('REVOKED');
});

/** An account's client certificate and key as a PKCS#12 with a passphrase (openssl, as the test PKI makes its own). */
async function pfxOf(account: Account): Promise<{ pfxBase64: string; pfxPassphrase: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'connection-pfx-'));
  try {
    const pfxPassphrase = crypto.randomBytes(12).toString('hex');
    const out = path.join(dir, 'client.p12');
    await runTool(
      'openssl',
      [
        'pkcs12',
        '-export',
        '-inkey',
        account.keyFile,
        '-in',
        account.certFile,
        '-out',
        out,
        '-passout',
        'env:PFX_PASSPHRASE',
      ],
      { env: { ...process.env, PFX_PASSPHRASE: pfxPassphrase } },
    );
    return { pfxBase64: fs.readFileSync(out).toString('base64'), pfxPassphrase };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
