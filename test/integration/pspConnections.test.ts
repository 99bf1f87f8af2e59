/**
 * A merchant's own PSP connection, registered through the operator CLI (run in process, as
 * cli/gateway.ts runs it) against this stack's sandbox API Pix (mutual TLS, test PKI): the row
 * holds no secret in clear, `show` prints none, `test` takes a token and reads the webhook and the
 * balance, a wrong client secret is reported in our words, a rotation with a wrong secret keeps the
 * active one and a good one replaces it, and revoke ends it; `connection webhook` registers the
 * connection's own notification URL at its PSP account, and that URL takes notifications for the
 * connection's merchant only. A stack of its own: the shared stack gives no API Pix URL.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { QueryTypes } from 'sequelize';
import { DEV_PIX_CLIENT_ID, DEV_PIX_CLIENT_SECRET } from '../../sandbox/config';
import { SANDBOX_MERCHANT } from '../../sandbox/payer';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { connectionCli } from '../support/inProcessCli';
import { testCertificates, type PkiFiles } from '../support/testCertificates';
import { credentialsKeyring, openEnvelope } from '../../core/crypto/envelope';
import { readClientTls } from '../../core/net/clientTls';
import { PixApiConnection } from '../../activities/provider/pixApi/connection';
import { PixApiClient } from '../../activities/provider/pixApi/pixApiClient';
import { Charge } from '../../db/charges/charge';
import { recordIssuedSecrets } from '../support/testLogs';
import { makeSandboxAccount, type MadeSandboxAccount } from '../support/sandboxAccounts';
import { secretsIn as secretsOf } from '../support/connectionSecrets';
import { describeRewrap, rewrapConnections } from '../../cli/connectionKeys';

jest.setTimeout(120_000);

let stack: IntegrationStack;
let pki: PkiFiles;
let dir: string;
let cli: ReturnType<typeof connectionCli>;

beforeAll(async () => {
  stack = await startIntegrationStack({ inProcessWorker: false });
  pki = await testCertificates();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'psp-connection-'));
  cli = connectionCli(stack);
});

afterAll(async () => {
  fs.rmSync(dir, { recursive: true, force: true });
  await stack?.stop();
});

function secretFile(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, `${text}\n`, { mode: 0o600 });
  return file;
}

const goodSecret = () => secretFile('good-secret', DEV_PIX_CLIENT_SECRET);
const wrongSecret = () => secretFile('wrong-secret', `wrong-${crypto.randomBytes(6).toString('hex')}`);
const pem = (certificate: { certFile: string; keyFile: string } = platformCertificate()) => [
  '--cert-file', certificate.certFile,
  '--key-file', certificate.keyFile,
  '--ca-file', pki.caFile,
]; // prettier-ignore
/** The platform's (the sandbox's default account's) client certificate: the stack's own. */
const platformCertificate = () => ({ certFile: pki.clientCertFile, keyFile: pki.clientKeyFile });

/**
 * `connection register` for the platform's account, or for `account` with its own certificate
 * unless `certificate` names another (an account's credentials with another account's certificate).
 */
function registerArgs(
  merchantId: string,
  secretPath: string,
  account: { clientId: string; key: string; certFile?: string; keyFile?: string } = {
    clientId: DEV_PIX_CLIENT_ID,
    key: SANDBOX_MERCHANT.pixKey,
  },
  certificate: { certFile: string; keyFile: string } = account.certFile && account.keyFile
    ? { certFile: account.certFile, keyFile: account.keyFile }
    : platformCertificate(),
): string[] {
  return [
    'register',
    '--merchant', merchantId,
    '--psp', 'efi',
    '--api-base-url', `${stack.pixApiUrl}/api/v2`,
    '--token-url', `${stack.pixApiUrl}/oauth/token`,
    '--client-id', account.clientId,
    '--client-secret-file', secretPath,
    '--pix-key', account.key,
    ...pem(certificate),
    '--json',
  ]; // prettier-ignore
}

async function row(merchantId: string) {
  const [found] = await stack.sequelize.query<{
    text: string;
    status: string;
    secret_envelope: string;
    pending: string | null;
  }>(
    `SELECT row_to_json(c)::text AS text, status, secret_envelope, pending_secret_envelope AS pending
       FROM psp_connections c WHERE merchant_id = :merchantId ORDER BY created_at DESC LIMIT 1`,
    { replacements: { merchantId }, type: QueryTypes.SELECT },
  );
  return found;
}

/** Every form a secret of the test could take in a row or an output. */
const secretsIn = (text: string) =>
  secretsOf(text, {
    clientSecrets: [DEV_PIX_CLIENT_SECRET],
    keyFile: pki.clientKeyFile,
    passphrases: [pki.pfxPassphrase],
  });

it('registers a connection whose row and show hold no secret, and whose test passes against the PSP', async () => {
  const { merchantId } = await stack.createMerchant({ name: 'Loja Conectada' });
  const registered = await cli(registerArgs(merchantId, goodSecret()));
  expect(registered.ok).toBe(true);
  const view = JSON.parse(registered.output);
  expect(view).toMatchObject({ merchantId, status: 'ACTIVE', clientId: DEV_PIX_CLIENT_ID, masterKeyId: 'k1' });
  expect(view.lastTest).toMatchObject({
    ok: true,
    token: 'TAKEN',
    webhook: 'REGISTERED',
    balance: 'READABLE',
    problems: [],
  });
  const certificate = new crypto.X509Certificate(fs.readFileSync(pki.clientCertFile));
  expect(view.certificateFingerprint).toBe(certificate.fingerprint256);

  const stored = await row(merchantId);
  expect(stored.secret_envelope).toMatch(/^env1:k1:/);
  expect(secretsIn(stored.text)).toEqual([]);

  for (const args of [
    ['show', '--merchant', merchantId],
    ['show', '--merchant', merchantId, '--json'],
  ]) {
    const shown = await cli(args);
    expect(shown.output).toContain(DEV_PIX_CLIENT_ID);
    expect(shown.output).toContain(certificate.fingerprint256);
    expect(secretsIn(shown.output)).toEqual([]);
    expect(shown.output).not.toContain('env1:');
  }

  const tested = await cli(['test', '--merchant', merchantId, '--json']);
  expect(tested.ok).toBe(true);
  expect(JSON.parse(tested.output)).toMatchObject({
    ok: true,
    token: 'TAKEN',
    webhook: 'REGISTERED',
    balance: 'READABLE',
  });
});

it('reports a refused client secret in our words, and keeps the record of that test', async () => {
  const { merchantId } = await stack.createMerchant({ name: 'Loja Segredo Errado' });
  const registered = await cli(registerArgs(merchantId, wrongSecret()));
  expect(registered.ok).toBe(false);
  const tested = await cli(['test', '--merchant', merchantId]);
  expect(tested.ok).toBe(false);
  expect(tested.output).toContain('PROBLEMS (token REFUSED, webhook UNKNOWN, balance UNKNOWN)');
  expect(tested.output).toContain('the PSP refused the client id or client secret: no token was issued');
  expect(tested.output).not.toMatch(/\bat .*\.ts:\d+/);
});

it("reports a PSP server certificate it cannot trust (no --ca-file for the sandbox's private CA) in our words", async () => {
  const { merchantId } = await stack.createMerchant({ name: 'Loja Sem CA' });
  const registered = await cli(
    registerArgs(merchantId, goodSecret()).filter((a, i, all) => a !== '--ca-file' && all[i - 1] !== '--ca-file'),
  );
  expect(registered.ok).toBe(false);
  expect(JSON.parse(registered.output).lastTest).toMatchObject({ token: 'UNREACHABLE', webhook: 'UNKNOWN' });
  expect(JSON.parse(registered.output).lastTest.problems[0]).toMatch(
    /^the PSP's server certificate is not trusted during the token request \([A-Z_]+\): give its CA with --ca-file$/,
  );
});

it('rotates without downtime: a failing secret leaves the active one, a good one (as PKCS#12) replaces it', async () => {
  const { merchantId } = await stack.createMerchant({ name: 'Loja Rotação' });
  expect((await cli(registerArgs(merchantId, goodSecret()))).ok).toBe(true);
  const before = await row(merchantId);

  await expect(
    cli(['rotate', '--merchant', merchantId, '--client-secret-file', wrongSecret(), ...pem()]),
  ).rejects.toThrow(
    'rotation refused, the active secrets stay in use: the new ones failed their test: the PSP refused the client id or client secret',
  );
  const kept = await row(merchantId);
  expect(kept).toMatchObject({ status: 'ACTIVE', secret_envelope: before.secret_envelope, pending: null });
  expect((await cli(['test', '--merchant', merchantId])).ok).toBe(true);

  const passphrase = secretFile('pfx-passphrase', pki.pfxPassphrase);
  const pfx = ['--pfx-file', pki.clientPfxFile, '--pfx-passphrase-file', passphrase, '--ca-file', pki.caFile];
  const rotated = await cli([
    'rotate',
    '--merchant',
    merchantId,
    '--client-secret-file',
    goodSecret(),
    ...pfx,
    '--json',
  ]);
  expect(rotated.ok).toBe(true);
  const promoted = await row(merchantId);
  expect(promoted).toMatchObject({ status: 'ACTIVE', pending: null });
  expect(promoted.secret_envelope).not.toBe(before.secret_envelope);
  expect(secretsIn(promoted.text)).toEqual([]);
  // The same client certificate, read out of the PKCS#12 this time.
  const certificate = new crypto.X509Certificate(fs.readFileSync(pki.clientCertFile));
  expect(JSON.parse(rotated.output).certificateFingerprint).toBe(certificate.fingerprint256);
  expect(JSON.parse((await cli(['test', '--merchant', merchantId, '--json'])).output).ok).toBe(true);

  const revoked = await cli(['revoke', '--merchant', merchantId, '--json']);
  expect(JSON.parse(revoked.output)).toMatchObject({ status: 'REVOKED' });
  expect((await row(merchantId)).status).toBe('REVOKED');
  await expect(cli(['test', '--merchant', merchantId])).rejects.toThrow(
    `merchant ${merchantId} has no active PSP connection (register one first)`,
  );
  expect((await cli(['show', '--merchant', merchantId])).output).toContain('(REVOKED)');
});

it('answers bad input with a sentence: unknown merchant, missing file, both certificate forms, unreadable PKCS#12, a second registration', async () => {
  const unknown = crypto.randomUUID();
  await expect(cli(registerArgs(unknown, goodSecret()))).rejects.toThrow(`no merchant with id ${unknown}`);
  const { merchantId } = await stack.createMerchant({ name: 'Loja Entrada Ruim' });
  await expect(cli(registerArgs(merchantId, path.join(dir, 'absent')))).rejects.toThrow(
    'connection register: --client-secret-file could not be read (ENOENT)',
  );
  await expect(cli([...registerArgs(merchantId, goodSecret()), '--pfx-file', pki.clientPfxFile])).rejects.toThrow(
    /give the certificate one way/,
  );
  const noPem = registerArgs(merchantId, goodSecret()).slice(0, -7);
  await expect(cli([...noPem, '--pfx-file', pki.clientCertFile])).rejects.toThrow(
    /connection register: --pfx-file cannot be opened with --pfx-passphrase-file \(not PKCS#12, or a wrong passphrase\)/,
  );
  expect((await cli(registerArgs(merchantId, goodSecret()))).ok).toBe(true);
  await expect(cli(registerArgs(merchantId, goodSecret()))).rejects.toThrow(
    `merchant ${merchantId} already has an active connection: rotate its secrets, or revoke it first`,
  );
});

/** A new account at the sandbox PSP (another than the platform's): its client id, secret, key and certificate. */
function sandboxAccount(): Promise<MadeSandboxAccount> {
  return makeSandboxAccount(stack.sandboxUrl);
}

/** GET /v2/webhook/{chave} at the sandbox with the account's own credentials and certificate: the URL registered there. */
async function webhookAt(account: MadeSandboxAccount): Promise<string | null> {
  const { tls } = readClientTls({
    certFile: { name: 'cert', value: account.certFile },
    keyFile: { name: 'key', value: account.keyFile },
    caFile: { name: 'ca', value: pki.caFile },
  });
  const connection = new PixApiConnection({
    tokenUrl: `${stack.pixApiUrl}/oauth/token`,
    clientId: account.clientId,
    clientSecret: account.clientSecret,
    tls,
    timeoutMs: 15_000,
    allowPlainHttp: false,
  });
  try {
    const found = await new PixApiClient({ connection, baseUrl: `${stack.pixApiUrl}/api/v2` }).getWebhook(account.key);
    return found?.webhookUrl ?? null;
  } finally {
    await connection.close();
  }
}

/** A valid endToEndId (E, an ISPB, a minute, 11 letters and digits), new each call. */
function endToEndId(): string {
  return `E12345678202605011200${crypto.randomBytes(8).toString('hex').slice(0, 11)}`;
}

/** A PENDING Pix charge of `merchantId`, as issued (its cob's txid is its id's 32 hex digits). */
async function pendingCharge(merchantId: string): Promise<{ id: string; txid: string }> {
  const id = crypto.randomUUID();
  const txid = id.replace(/-/g, '');
  const expiresAt = new Date(Date.now() + 3_600_000);
  await Charge.create({
    id,
    merchantId,
    amountCents: 2_500,
    feeCents: 25,
    status: 'PENDING',
    description: null,
    externalRef: null,
    metadata: null,
    pix: { qrCode: '', copyPaste: '', expiresAt: expiresAt.toISOString() },
    payerSnapshot: null,
    payerDetails: null,
    providerChargeId: txid,
    pixTxid: txid,
    endToEndId: null,
    idempotencyKey: null,
    expiresAt,
    paidAt: null,
    expiredAt: null,
    cancelledAt: null,
  } as never);
  return { id, txid };
}

async function storedPixEvents(e2e: string): Promise<string[]> {
  const rows = await stack.sequelize.query<{ id: string }>(`SELECT id FROM provider_events WHERE id LIKE :pattern`, {
    replacements: { pattern: `%${e2e}` },
    type: QueryTypes.SELECT,
  });
  return rows.map((r) => r.id);
}

it("registers the connection's own notification URL at its PSP account (never printing its secret), and that URL claims for its merchant only", async () => {
  const account = await sandboxAccount();
  const { merchantId } = await stack.createMerchant({ name: 'Loja Notificada' });
  const registered = await cli(registerArgs(merchantId, secretFile('account-secret', account.clientSecret), account));
  const view = JSON.parse(registered.output);
  // A new account has no webhook yet: the test says so.
  expect(view.lastTest).toMatchObject({ token: 'TAKEN', webhook: 'MISSING' });
  const connectionId = view.id as string;
  const [stored] = await stack.sequelize.query<{ envelope: string }>(
    `SELECT webhook_path_secret_envelope AS envelope FROM psp_connections WHERE id = :connectionId`,
    { replacements: { connectionId }, type: QueryTypes.SELECT },
  );
  const pathSecret = openEnvelope(stored.envelope, credentialsKeyring(stack.encryptionKey));
  // The run's log audit fails if any log line holds it.
  recordIssuedSecrets("a connection's webhook path secret", [pathSecret]);
  const base = `${stack.apiUrl}/webhooks/pix-api/connections/${connectionId}`;

  const done = await cli(['webhook', '--merchant', merchantId, '--json']);
  expect(JSON.parse(done.output)).toEqual({
    connectionId,
    merchantId,
    pixKey: account.key,
    url: `${base}/…`,
    outcome: 'registered',
  });
  const again = await cli(['webhook', '--merchant', merchantId]);
  expect(again.output).toBe(
    `API Pix webhooks for key ${account.key} and Pix Automático: already registered\n  ${base}/…/pix\n  ${base}/…/rec\n  ${base}/…/cobr\n`,
  );
  for (const output of [done.output, again.output]) expect(output).not.toContain(pathSecret);
  // At the PSP, on the connection's account and key: the URL with the secret, the platform's left alone.
  expect(await webhookAt(account)).toBe(`${base}/${pathSecret}`);
  expect(JSON.parse((await cli(['test', '--merchant', merchantId, '--json'])).output)).toMatchObject({
    ok: true,
    webhook: 'REGISTERED',
  });

  const notify = (secret: string, pix: Array<Record<string, unknown>>) =>
    fetch(`${base}/${secret}/pix`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pix }),
    });
  const pixOf = (e2e: string, txid: string) => ({
    endToEndId: e2e,
    txid,
    valor: '25.00',
    chave: account.key,
    horario: new Date().toISOString(),
  });

  const wrong = await notify(`${pathSecret.slice(0, -1)}${pathSecret.endsWith('A') ? 'B' : 'A'}`, [
    pixOf(endToEndId(), 'f'.repeat(32)),
  ]);
  expect(wrong.status).toBe(404);
  expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');

  // A Pix of no charge of ours: taken (the PSP stops retrying), stored under the merchant's scope.
  const stray = endToEndId();
  const strayRes = await notify(pathSecret, [pixOf(stray, 'f'.repeat(32))]);
  expect(strayRes.status).toBe(200);
  expect(await strayRes.json()).toEqual({
    received: true,
    outcomes: [{ endToEndId: stray, outcome: 'UNKNOWN_CHARGE' }],
  });
  expect(await storedPixEvents(stray)).toEqual([`pix:${merchantId}:${stray}`]);

  // Another merchant's charge: not claimed, nothing stored, the charge untouched.
  const other = await stack.createMerchant({ name: 'Outra Loja' });
  const theirs = await pendingCharge(other.merchantId);
  const foreign = endToEndId();
  const foreignRes = await notify(pathSecret, [pixOf(foreign, theirs.txid)]);
  expect(foreignRes.status).toBe(200);
  expect(await foreignRes.json()).toEqual({
    received: true,
    outcomes: [{ endToEndId: foreign, outcome: 'NOT_THIS_CONNECTION' }],
  });
  expect(await storedPixEvents(foreign)).toEqual([]);
  expect((await Charge.findByPk(theirs.id))?.status).toBe('PENDING');

  // Its own merchant's charge: claimed through the one claim path (no run waits for it in this
  // worker-less stack, so it goes to settleLatePayment, which asks the PSP before crediting).
  const ours = await pendingCharge(merchantId);
  const own = endToEndId();
  const ownRes = await notify(pathSecret, [pixOf(own, ours.txid)]);
  expect(ownRes.status).toBe(200);
  expect(await ownRes.json()).toEqual({ received: true, outcomes: [{ endToEndId: own, outcome: 'LATE_PAYMENT' }] });
  expect(await storedPixEvents(own)).toEqual([`pix:${merchantId}:${own}`]);
});

it('connection webhook needs an active connection', async () => {
  const { merchantId } = await stack.createMerchant({ name: 'Loja Sem Conexão' });
  await expect(cli(['webhook', '--merchant', merchantId])).rejects.toThrow(
    `merchant ${merchantId} has no active PSP connection (register one first)`,
  );
});

it("rotates the connections' master key without interrupting one: rewrap moves every envelope to k2 (the ciphertext unchanged), and back", async () => {
  const { merchantId } = await stack.createMerchant({ name: 'Loja Chave Mestra' });
  expect((await cli(registerArgs(merchantId, goodSecret()))).ok).toBe(true);
  const k2 = crypto.randomBytes(32).toString('hex');
  const toK2 = credentialsKeyring(stack.encryptionKey, { keys: { k2 }, currentKeyId: 'k2' });
  const backToK1 = credentialsKeyring(stack.encryptionKey, { keys: { k2 }, currentKeyId: 'k1' });
  const before = await row(merchantId);

  const report = await rewrapConnections({ sequelize: stack.sequelize, keyring: toK2 });
  expect(report).toMatchObject({ currentKeyId: 'k2', skipped: 0, unopenable: [] });
  expect(report.rewrapped).toBeGreaterThanOrEqual(1);
  const moved = await row(merchantId);
  expect(moved.secret_envelope).toMatch(/^env1:k2:/);
  expect(moved.secret_envelope.split(':')[3]).toBe(before.secret_envelope.split(':')[3]);
  expect(secretsIn(moved.text)).toEqual([]);
  expect(describeRewrap(report)).not.toContain(k2);

  // Under the new keyring the connection works; a process still holding the old key alone cannot open it.
  expect((await connectionCli(stack, toK2)(['test', '--merchant', merchantId])).ok).toBe(true);
  await expect(cli(['test', '--merchant', merchantId])).rejects.toThrow('master key k2, which is not configured');
  expect((await rewrapConnections({ sequelize: stack.sequelize, keyring: toK2 })).rewrapped).toBe(0);

  // And back, so every row opens under k1 alone again (this file's other cases).
  expect((await rewrapConnections({ sequelize: stack.sequelize, keyring: backToK1 })).unopenable).toEqual([]);
  expect((await row(merchantId)).secret_envelope).toMatch(/^env1:k1:/);
  expect((await cli(['test', '--merchant', merchantId])).ok).toBe(true);
});

describe("a connection registered with another account's certificate", () => {
  it('is reported by its test in our words (token CERTIFICATE_REFUSED), and fails only its own merchant', async () => {
    const own = await sandboxAccount();
    const other = await sandboxAccount();
    const good = await stack.createMerchant({ name: 'Loja Certificado Certo' });
    const crossed = await stack.createMerchant({ name: 'Loja Certificado Trocado' });
    const goodRegistered = await cli(registerArgs(good.merchantId, secretFile('own-secret', own.clientSecret), own));
    expect(JSON.parse(goodRegistered.output).lastTest).toMatchObject({ token: 'TAKEN', balance: 'READABLE' });

    // `other`'s client id and secret, with `own`'s certificate.
    const registered = await cli(
      registerArgs(crossed.merchantId, secretFile('other-secret', other.clientSecret), other, own),
    );
    expect(registered.ok).toBe(false);
    const problem =
      "the PSP took the client id and secret but refused the client certificate: it is not one of this account's (another account's certificate?); give the certificate the PSP issued for this account";
    expect(JSON.parse(registered.output).lastTest).toEqual({
      at: expect.any(String),
      ok: false,
      token: 'CERTIFICATE_REFUSED',
      webhook: 'UNKNOWN',
      balance: 'UNKNOWN',
      problems: [problem],
    });
    const tested = await cli(['test', '--merchant', crossed.merchantId]);
    expect(tested.ok).toBe(false);
    expect(tested.output).toContain('PROBLEMS (token CERTIFICATE_REFUSED, webhook UNKNOWN, balance UNKNOWN)');
    expect(tested.output).toContain(problem);

    // The merchant on its own account and certificate is untouched.
    const goodTested = JSON.parse((await cli(['test', '--merchant', good.merchantId, '--json'])).output);
    expect(goodTested).toMatchObject({ token: 'TAKEN', balance: 'READABLE' });
  });
});
