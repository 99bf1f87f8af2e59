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
import { recordIssuedSecrets } from '../support/testLogs';
import { makeSandboxAccount, type MadeSandboxAccount } from '../support/sandboxAccounts';
import { runTool } from '../support/externalTools';
import { pspConnectionOf } from '../../activities/provider/accounts/connectedProvider';
import { PixApiErrorCodes } from '../../activities/provider/pixApi/errors';

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

describe('POST /dashboard/connection/rotate', () => {
  /** A merchant whose connection to a fresh sandbox account is registered and its webhook set: its test passes. */
  async function connected(emailPrefix: string) {
    const o = await signedInMerchant(stack, { emailPrefix, name: 'Loja Rotativa' });
    const account = await sandboxAccount();
    const made = await register(o, registration(o.merchantId, account));
    expect(made.status).toBe(201);
    const hooked = await o.client.call('POST', `${PATH}/webhook`, { body: { merchantId: o.merchantId } });
    expect(hooked.status).toBe(200);
    return { o, account, connectionId: made.body.id as string };
  }

  /** A Pix charge of the merchant: issued as a cob at its own account, with its connection's current secrets. */
  async function charge(o: SignedInMerchant) {
    const res = await o.client.call('POST', '/charges', {
      body: { merchantId: o.merchantId, amountCents: 1_500, description: 'Pedido rotativo' },
      headers: key(),
    });
    return res;
  }

  /** Whether the PSP issues a token for the account's client id with this secret now (over its own certificate; a connection of their own, closed after). */
  async function takesToken(account: Account, clientSecret: string): Promise<boolean> {
    const connection = pspConnectionOf(
      { token_url: psp.tokenUrl, client_id: account.clientId },
      {
        clientSecret,
        identity: { kind: 'pem', cert: Buffer.from(account.certificatePem), key: Buffer.from(account.privateKeyPem) },
        ca: fs.readFileSync(psp.caFile),
      },
      { timeoutMs: 10_000, allowPlainHttp: false },
    );
    try {
      await connection.tokens.token();
      return true;
    } catch (err) {
      expect(err).toMatchObject({ code: PixApiErrorCodes.authFailed });
      return false;
    } finally {
      await connection.close();
    }
  }

  /** The account's secret rotated at the sandbox PSP first, as an operator does in the PSP's portal. */
  async function rotateAtPsp(accountId: string): Promise<string> {
    const res = await fetch(`${stack.sandboxUrl}/sandbox/accounts/${accountId}/secret`, { method: 'POST' });
    expect(res.status).toBe(200);
    const { clientSecret } = (await res.json()) as { clientSecret: string };
    recordIssuedSecrets('sandbox account client secrets', [clientSecret]);
    return clientSecret;
  }

  it('promotes a new client secret that passes its test; the next charge is issued with it; a replay answers the same', async () => {
    const { o, account, connectionId } = await connected('conn-rotate');
    const before = await charge(o);
    expect(before.status).toBe(201);

    const accountId = await sandboxAccountId(account.clientId);
    const newSecret = await rotateAtPsp(accountId);
    // The PSP takes no token with the old secret any more: whatever takes one from now on uses the new one.
    expect(await takesToken(account, account.clientSecret)).toBe(false);
    expect(await takesToken(account, newSecret)).toBe(true);

    const headers = key();
    const body = { merchantId: o.merchantId, clientSecret: newSecret };
    const rotated = await o.client.call('POST', `${PATH}/rotate`, { body, headers });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({
      id: connectionId,
      status: 'ACTIVE',
      clientId: account.clientId,
      rotationPending: false,
      // The certificate was not given: the registered one is kept.
      certificateFingerprint: new crypto.X509Certificate(account.certificatePem).fingerprint256,
      lastTest: { ok: true, token: 'TAKEN', webhook: 'REGISTERED', balance: 'READABLE', problems: [] },
    });
    const replay = await o.client.call('POST', `${PATH}/rotate`, { body, headers });
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(rotated.body);
    const other = await o.client.call('POST', `${PATH}/rotate`, {
      body: { ...body, clientSecret: `${newSecret}x` },
      headers,
    });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('DUPLICATE_IDEMPOTENCY_KEY');

    const after = await charge(o);
    expect(after.status).toBe(201);
    expect(await paidInto(after.body.id, accountId)).toBeGreaterThan(0);
    const [{ psp_connection_id }] = await stack.sequelize.query<{ psp_connection_id: string }>(
      'SELECT psp_connection_id FROM charges WHERE id = :id',
      { replacements: { id: after.body.id }, type: QueryTypes.SELECT },
    );
    expect(psp_connection_id).toBe(connectionId);

    const newSecrets = { ...secrets(account), clientSecrets: [account.clientSecret, newSecret] };
    for (const answer of [rotated, replay, other])
      expect(secretsIn(JSON.stringify(answer.body), newSecrets)).toEqual([]);
    expect(secretsIn(await storedRow(o.merchantId), newSecrets)).toEqual([]);
  });

  it('refuses new material that fails its test with 422 and its problems; the old secrets stay active and keep charging', async () => {
    const { o, account } = await connected('conn-rotate-bad');
    const shown = (await o.client.call('GET', `${PATH}?merchantId=${o.merchantId}`)).body;
    const wrong = `Client_Secret_${crypto.randomBytes(12).toString('hex')}`;
    const refused = await o.client.call('POST', `${PATH}/rotate`, {
      body: { merchantId: o.merchantId, clientSecret: wrong },
      headers: key(),
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({
      code: 'PSP_CONNECTION_TEST_FAILED',
      message: expect.stringContaining('your current secrets stay in use'),
      details: { problems: ['the PSP refused the client id or client secret: no token was issued'] },
    });
    expect(JSON.stringify(refused.body)).not.toContain(wrong);
    const after = (await o.client.call('GET', `${PATH}?merchantId=${o.merchantId}`)).body;
    expect(after).toEqual({ ...shown, rotationPending: false });
    const [{ pending }] = await stack.sequelize.query<{ pending: string | null }>(
      'SELECT pending_secret_envelope AS pending FROM psp_connections WHERE merchant_id = :id',
      { replacements: { id: o.merchantId }, type: QueryTypes.SELECT },
    );
    expect(pending).toBeNull();
    const still = await charge(o);
    expect(still.status).toBe(201);
    expect(await paidInto(still.body.id, await sandboxAccountId(account.clientId))).toBeGreaterThan(0);

    // Material that does not even open is a 400 naming the field, before anything is staged.
    const stranger = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const badKey = await o.client.call('POST', `${PATH}/rotate`, {
      body: {
        merchantId: o.merchantId,
        certPem: account.certificatePem,
        keyPem: stranger.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      },
      headers: key(),
    });
    expect(badKey.status).toBe(400);
    expect(badKey.body.error.details.fields[0].field).toBe('certPem');
    const empty = await o.client.call('POST', `${PATH}/rotate`, { body: { merchantId: o.merchantId }, headers: key() });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details.fields[0].field).toBe('clientSecret');
    const noKey = await o.client.call('POST', `${PATH}/rotate`, {
      body: { merchantId: o.merchantId, clientSecret: wrong },
    });
    expect(noKey.body.error.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
  });

  it('lets only the owner rotate, with a second factor when on', async () => {
    const { o, account } = await connected('conn-rotate-roles');
    const admin = await signedInUser(stack, { emailPrefix: 'conn-rotate-admin' });
    await MerchantMember.create({ userId: admin.userId, merchantId: o.merchantId, role: 'admin' });
    const body = { merchantId: o.merchantId, clientSecret: account.clientSecret };
    const byAdmin = await admin.client.call('POST', `${PATH}/rotate`, { body, headers: key() });
    expect(byAdmin.status).toBe(403);
    expect(byAdmin.body.error).toMatchObject({ code: 'INSUFFICIENT_ROLE', details: { allowedRoles: ['owner'] } });
    const other = await signedInMerchant(stack, { emailPrefix: 'conn-rotate-other' });
    const byOther = await other.client.call('POST', `${PATH}/rotate`, { body, headers: key() });
    expect(byOther.status).toBe(404);
    expect(byOther.body.error.code).toBe('MERCHANT_NOT_FOUND');

    const actionToken = await withTotp(o);
    const headers = key();
    const without = await o.client.call('POST', `${PATH}/rotate`, { body, headers });
    expect(without.status).toBe(403);
    expect(without.body.error).toMatchObject({ code: 'SECOND_FACTOR_REQUIRED', details: { action: 'psp-connection' } });
    const withToken = await o.client.call('POST', `${PATH}/rotate`, {
      body,
      headers: { ...headers, 'x-action-token': await actionToken() },
    });
    expect(withToken.status).toBe(200);
    expect(withToken.body.lastTest).toMatchObject({ ok: true });
  });
});

/** Pays the charge's cob at the sandbox: what the account's balance grew by (the cob is that account's when it grows). */
async function paidInto(chargeId: string, accountId: string): Promise<number> {
  const balance = async () =>
    ((await (await fetch(`${stack.sandboxUrl}/sandbox/accounts/${accountId}`)).json()) as { balanceCents: number })
      .balanceCents;
  const before = await balance();
  const paid = await stack.pay(chargeId);
  expect(paid.status).toBeLessThan(300);
  return (await balance()) - before;
}

/** A sandbox account's id, by its client id (the control routes name accounts by id). */
async function sandboxAccountId(clientId: string): Promise<string> {
  const res = await fetch(`${stack.sandboxUrl}/sandbox/accounts`);
  const { accounts } = (await res.json()) as { accounts: { id: string; clientId: string }[] };
  const found = accounts.find((a) => a.clientId === clientId);
  if (!found) throw new Error(`no sandbox account with client id ${clientId}`);
  return found.id;
}
