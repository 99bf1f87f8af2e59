/**
 * Subscriptions of a merchant on a connected account (issue 39 on issue 37's model), on a stack of
 * its own with the sandbox PSP holding the merchant's own account: a journey-2 subscription bought
 * through the application API is a recurrence at the merchant's account (not the platform's), its
 * approval is notified by the sandbox at the connection's own URL (`…/connections/<id>/<secret>/rec`,
 * registered by `gateway connection webhook` with the connection's API Pix webhook) and reaches the
 * workflow; a cycle issued (the activities called directly: the workflow issues only 9 days before
 * its settlement date) names the connection's account as its receiver, is paid by the sandbox's
 * payer, notified at the connection's `/cobr`, and credited to the merchant with no platform fee
 * (the PSP pays a cobr whole into the merchant's account and divides nothing), so the ledger
 * mirror equals the account's balance to the cent and the platform's account gains nothing. A
 * notice on the connection's URL naming another merchant's subscription is not acted on; a
 * connection registered without its account number refuses subscriptions for good.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { QueryTypes } from 'sequelize';
import { loadConfig } from '../../config';
import { pspAccountsFrom, type ConnectedPspAccounts } from '../../activities/provider/accounts/pspAccounts';
import { providerFrom, type ConfiguredProvider } from '../../activities/provider/providerFrom';
import { createSubscriptionActivities } from '../../activities/subscriptions';
import type { SubscriptionActivities } from '../../activities/subscriptions/contract';
import { addDays } from '../../core/boletos/dates';
import { credentialsKeyring, openEnvelope } from '../../core/crypto/envelope';
import { accounts as ledgerAccounts } from '../../core/ledger/accounts';
import type { SubscriptionLifecycleInput } from '../../workflows/subscriptions/types';
import { waitFor } from '../support/env';
import { connectionCli } from '../support/inProcessCli';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { makeSandboxAccount, type MadeSandboxAccount } from '../support/sandboxAccounts';
import { signedInMerchant, type SignedInMerchant } from '../support/signedIn';
import { insertSubscription } from '../support/subscriptions';
import { testCertificates, type PkiFiles } from '../support/testCertificates';
import { testLogger } from '../support/testLogs';

jest.setTimeout(180_000);

const AMOUNT = 4_990;
/** Today in Brasília (UTC−3, no daylight saving). */
const today = () => new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);

let stack: IntegrationStack;
let pki: PkiFiles;
let dir: string;
let cli: ReturnType<typeof connectionCli>;
let psp: ConfiguredProvider;
let pspAccounts: ConnectedPspAccounts;
let acts: SubscriptionActivities;

beforeAll(async () => {
  stack = await startIntegrationStack();
  pki = await testCertificates();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'connected-subscriptions-'));
  cli = connectionCli(stack);
  const config = loadConfig({ ...process.env, NODE_ENV: 'test', ...stack.workerEnv });
  const logger = testLogger('connected-subscriptions');
  psp = providerFrom(config, logger);
  pspAccounts = pspAccountsFrom(
    { ...config, accountModelDefault: 'platform' },
    { platform: psp.provider, platformRecurrences: psp.pixApi.automatico, sequelize: stack.sequelize, logger },
  );
  acts = createSubscriptionActivities({
    sequelize: stack.sequelize,
    provider: psp.provider,
    accounts: pspAccounts,
    providerCallbackUrl: `${stack.apiUrl}/webhooks/pix-gateway`,
    publicBaseUrl: stack.apiUrl,
    automaticoReceiver: config.pixApi.automaticoReceiver,
  });
});

afterAll(async () => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  await pspAccounts?.close();
  await psp?.close();
  await stack?.stop();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

async function sandbox(method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${stack.sandboxUrl}${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function control(route: string, body: unknown = {}) {
  const res = await sandbox('POST', `/sandbox/pix-automatico${route}`, body);
  expect({ route, status: res.status }).toEqual({ route, status: 200 });
  return res.body;
}

async function pspBalance(accountId: string): Promise<number> {
  const got = await sandbox('GET', `/sandbox/accounts/${accountId}`);
  expect(got.status).toBe(200);
  return got.body.balanceCents as number;
}

/** `gateway connection register` for the merchant with its sandbox account (with its account number unless told). */
async function registerConnection(
  merchantId: string,
  account: MadeSandboxAccount,
  opts: { accountNumber?: boolean } = {},
): Promise<string> {
  const secretFile = path.join(dir, `secret-${crypto.randomUUID()}`);
  fs.writeFileSync(secretFile, `${account.clientSecret}\n`, { mode: 0o600 });
  const registered = await cli([
    'register',
    '--merchant', merchantId,
    '--psp', 'efi',
    '--api-base-url', `${stack.pixApiUrl}/api/v2`,
    '--token-url', `${stack.pixApiUrl}/oauth/token`,
    '--client-id', account.clientId,
    '--client-secret-file', secretFile,
    '--pix-key', account.key,
    ...(opts.accountNumber === false ? [] : ['--account-number', account.conta]),
    '--cert-file', account.certFile,
    '--key-file', account.keyFile,
    '--ca-file', pki.caFile,
    '--json',
  ]); // prettier-ignore
  const view = JSON.parse(registered.output) as { id: string; status: string };
  expect(view.status).toBe('ACTIVE');
  return view.id;
}

/** The connection's notification URL with its path secret (the test plays its PSP). */
async function connectionUrl(connectionId: string): Promise<string> {
  const [row] = await stack.sequelize.query<{ envelope: string }>(
    'SELECT webhook_path_secret_envelope AS envelope FROM psp_connections WHERE id = :connectionId',
    { replacements: { connectionId }, type: QueryTypes.SELECT },
  );
  const secret = openEnvelope(row.envelope, credentialsKeyring(stack.encryptionKey));
  return `/webhooks/pix-api/connections/${connectionId}/${secret}`;
}

async function subscriptionPrice(merchantId: string): Promise<string> {
  const courseId = crypto.randomUUID();
  const priceId = crypto.randomUUID();
  await stack.sequelize.query(
    `INSERT INTO courses (id, merchant_id, title, status, access_type, published_at)
     VALUES (:courseId, :merchantId, 'Curso de Piano Mensal', 'PUBLISHED', 'SUBSCRIPTION', now())`,
    { replacements: { courseId, merchantId } },
  );
  await stack.sequelize.query(
    `INSERT INTO course_prices (id, course_id, merchant_id, amount_cents, type, interval, retry_policy)
     VALUES (:priceId, :courseId, :merchantId, :amount, 'SUBSCRIPTION', 'MONTHLY', 'PERMITE_3R_7D')`,
    { replacements: { priceId, courseId, merchantId, amount: AMOUNT } },
  );
  return priceId;
}

async function subscriptionRow(id: string) {
  const [row] = await stack.sequelize.query<{
    status: string;
    id_rec: string | null;
    psp_connection_id: string | null;
  }>('SELECT status, id_rec, psp_connection_id FROM subscriptions WHERE id = :id', {
    replacements: { id },
    type: QueryTypes.SELECT,
  });
  return row;
}

/** The sandbox's delivery attempts of its notices about `subjectId` (an idRec or a txid). */
async function deliveries(subjectId: string): Promise<Array<{ url: string; httpStatus: number | null }>> {
  const got = await sandbox('GET', `/sandbox/callbacks?chargeId=${encodeURIComponent(subjectId)}`);
  return got.body.attempts;
}

describe('a connected merchant’s subscription', () => {
  let shop: SignedInMerchant;
  let account: MadeSandboxAccount;
  let connectionId: string;

  beforeAll(async () => {
    account = await makeSandboxAccount(stack.sandboxUrl, { name: 'ESCOLA CONECTADA' });
    shop = await signedInMerchant(stack, { emailPrefix: 'connected-subs', name: 'Escola Conectada' });
    connectionId = await registerConnection(shop.merchantId, account);
    // The connection's webhooks: API Pix's for its key and Pix Automático's two, at its own URL.
    const webhook = await cli(['webhook', '--merchant', shop.merchantId, '--json']);
    expect(JSON.parse(webhook.output)).toMatchObject({ connectionId, outcome: 'registered' });
  });

  it('journey 2: a recurrence at its own account, approved through its URL’s /rec, a cycle paid into its account and credited without a platform fee', async () => {
    const url = await connectionUrl(connectionId);
    const base = `${stack.apiUrl}${url}`;
    // webhookrec and webhookcobr of the merchant's account point at the connection's URL.
    const automatico = stack.sandbox.state.pixAutomatico;
    expect(automatico.webhookRec.get(account.id)?.webhookUrl).toBe(base);
    expect(automatico.webhookCobR.get(account.id)?.webhookUrl).toBe(base);

    const priceId = await subscriptionPrice(shop.merchantId);
    const created = await shop.client.call('POST', '/subscriptions', {
      body: { priceId, journey: 'JOURNEY_2', payer: { name: 'Bruno Lima', document: '52998224725' } },
      headers: { 'idempotency-key': `sub-${crypto.randomUUID()}` },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'AWAITING_AUTHORISATION', journey: 'JOURNEY_2' });
    const id = created.body.id as string;
    const row = await subscriptionRow(id);
    expect(row.psp_connection_id).toBe(connectionId);
    const idRec = row.id_rec as string;
    // At the merchant's own account, not the platform's.
    expect(automatico.recs.get(idRec)?.accountId).toBe(account.id);
    // The platform's account does not know it (its GET /rec answers 404).
    const atPlatform = await psp.pixApi.automatico.getRecurrence(idRec).catch((err: { code?: string }) => err.code);
    expect([null, 'REC_NOT_FOUND']).toContain(atPlatform);

    await control(`/recs/${idRec}/approve`, { jornada: 'JORNADA_2' });
    // The workflow reads the rec on a notice (else hourly): AUTHORISED now means the notice reached it.
    await waitFor(async () => ((await subscriptionRow(id)).status === 'AUTHORISED' ? true : null), 'AUTHORISED');
    const recNotices = await deliveries(idRec);
    expect(recNotices.length).toBeGreaterThan(0);
    for (const n of recNotices) expect(n).toMatchObject({ url: `${base}/rec`, httpStatus: 200 });

    // The cycle, as the workflow would issue it in its window (9 days before the settlement date).
    const platformBefore = await pspBalance('default');
    const accountBefore = await pspBalance(account.id);
    const mirror = () => balance(stack.sequelize, ledgerAccounts.merchantAvailable(shop.merchantId));
    const fees = () => balance(stack.sequelize, ledgerAccounts.platformFees);
    const mirrorBefore = await mirror();
    const feesBefore = await fees();
    const due = created.body.firstDueDate as string;
    const issued = await acts.issueCycle({ subscriptionId: id, cycle: 1, dueDate: due, settlementDate: due });
    const cobr = automatico.cobrs.get(issued.txid);
    expect(cobr).toMatchObject({ accountId: account.id });
    // Its receiver: the connection's account number (the sandbox refuses any account but the token's).
    expect(cobr?.recebedor).toMatchObject({ conta: account.conta, tipoConta: 'PAGAMENTO' });
    const [charge] = await stack.sequelize.query<{ psp_connection_id: string; fee_cents: string }>(
      'SELECT psp_connection_id, fee_cents FROM charges WHERE id = :id',
      { replacements: { id: issued.chargeId }, type: QueryTypes.SELECT },
    );
    expect(charge).toEqual({ psp_connection_id: connectionId, fee_cents: '0' });

    await control(`/cobrs/${issued.txid}/pay`);
    expect(await acts.settleCycle({ subscriptionId: id, cycle: 1 })).toEqual({ outcome: 'SETTLED' });
    expect(await acts.settleCycle({ subscriptionId: id, cycle: 1 })).toEqual({ outcome: 'ALREADY_PAID' });
    // Whole into the merchant's account; the mirror follows to the cent; the platform gains nothing.
    expect((await pspBalance(account.id)) - accountBefore).toBe(AMOUNT);
    expect((await mirror()) - mirrorBefore).toBe(AMOUNT);
    expect(await fees()).toBe(feesBefore);
    expect(await pspBalance('default')).toBe(platformBefore);

    // The cobr's notices (created, paid) reached the connection's /cobr, and its workflow.
    await waitFor(async () => ((await deliveries(issued.txid)).length >= 2 ? true : null), 'cobr notices');
    for (const n of await deliveries(issued.txid)) expect(n).toMatchObject({ url: `${base}/cobr`, httpStatus: 200 });
    const cobrNotice = await stack.api('POST', `${url}/cobr`, {
      body: { cobsr: [{ txid: issued.txid, idRec, status: 'CONCLUIDA' }] },
    });
    expect(cobrNotice.status).toBe(200);
    expect(cobrNotice.body.outcomes).toEqual([{ txid: issued.txid, outcome: 'SIGNALLED' }]);

    // The merchant cancels: the recurrence is cancelled at its own account.
    const cancelled = await shop.client.call('POST', `/subscriptions/${id}/cancel`, {
      headers: { 'idempotency-key': `cancel-${id}` },
    });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'CANCELLED', cancelledBy: 'MERCHANT' });
    expect(automatico.recs.get(idRec)?.status).toBe('CANCELADA');
  });

  it('a notice on its URL naming another merchant’s subscription is not acted on', async () => {
    const url = await connectionUrl(connectionId);
    const other = await stack.createMerchant({ name: 'Escola Vizinha' });
    const foreign = await insertSubscription(stack.sequelize, other.merchantId, { status: 'AUTHORISED' });
    const { id_rec: foreignRec } = await subscriptionRow(foreign.id);
    const own = await insertSubscription(stack.sequelize, shop.merchantId, { status: 'AUTHORISED' });
    const { id_rec: ownRec } = await subscriptionRow(own.id);

    const rec = await stack.api('POST', `${url}/rec`, {
      body: { recs: [{ idRec: foreignRec }, { idRec: ownRec }] },
    });
    expect(rec.status).toBe(200);
    // Its own: looked up (no workflow runs for this row: ENDED); the other merchant's: refused.
    expect(rec.body).toEqual({
      received: true,
      ignored: 0,
      outcomes: [
        { idRec: foreignRec, outcome: 'NOT_THIS_CONNECTION' },
        { idRec: ownRec, outcome: 'ENDED' },
      ],
    });
    // The platform's URL knows every subscription.
    const secret = stack.workerEnv.PIX_WEBHOOK_SECRET;
    const platform = await stack.api('POST', `/webhooks/pix-api/${secret}/rec`, {
      body: { recs: [{ idRec: foreignRec }] },
    });
    expect(platform.body.outcomes).toEqual([{ idRec: foreignRec, outcome: 'ENDED' }]);
    // A wrong secret on the connection's /rec and /cobr: the platform route's 404.
    for (const route of ['rec', 'cobr'])
      expect((await stack.api('POST', `${url}x/${route}`, { body: { recs: [] } })).status).toBe(404);
  });
});

it('a connection registered without its account number refuses subscriptions for good (no receiver for its cycles)', async () => {
  const account = await makeSandboxAccount(stack.sandboxUrl, { name: 'ESCOLA SEM CONTA' });
  const merchant = await stack.createMerchant({ name: 'Escola Sem Conta' });
  const connectionId = await registerConnection(merchant.merchantId, account, { accountNumber: false });
  const priceId = await subscriptionPrice(merchant.merchantId);
  const [{ course_id: courseId }] = await stack.sequelize.query<{ course_id: string }>(
    'SELECT course_id FROM course_prices WHERE id = :priceId',
    { replacements: { priceId }, type: QueryTypes.SELECT },
  );
  const input = {
    subscriptionId: crypto.randomUUID(),
    merchantId: merchant.merchantId,
    courseId,
    priceId,
    courseTitle: 'Curso de Piano Mensal',
    journey: 'JOURNEY_2',
    interval: 'MONTHLY',
    retryPolicy: 'PERMITE_3R_7D',
    amountCents: AMOUNT,
    firstDueDate: addDays(today(), 10),
    lastDueDate: null,
    payer: { name: 'Maria da Silva', document: '12345678909' },
    payerAccount: null,
    firstChargeId: null,
    externalId: null,
    metadata: {},
    returnUrl: null,
    idempotencyKey: null,
  } satisfies SubscriptionLifecycleInput;
  await acts.recordSubscription(input);
  expect((await subscriptionRow(input.subscriptionId)).psp_connection_id).toBe(connectionId);
  const refused = acts.createRecurrence({
    subscriptionId: input.subscriptionId,
    firstAttemptAt: new Date().toISOString(),
  });
  await expect(refused).rejects.toMatchObject({
    type: 'SubscriptionsUnavailable',
    nonRetryable: true,
    message: expect.stringContaining('has no account number'),
  });
  // Nothing was created at its account.
  expect([...stack.sandbox.state.pixAutomatico.recs.values()].filter((r) => r.accountId === account.id)).toEqual([]);
});
