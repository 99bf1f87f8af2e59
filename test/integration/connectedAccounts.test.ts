/**
 * The connected account model end to end (issue 37), on a stack of its own with the sandbox PSP
 * holding several accounts: a merchant registers its own connection (the CLI, in process), and
 * then its charge is a cob on its own account, confirmed with its own connection, refunded in
 * part from its account, and its payout batch is sent from its account; at no point does the
 * platform's account (the sandbox's default one) hold its money, which the sandbox's own balances
 * show. A revoked connection stops its merchant only, with PSP_CONNECTION_REVOKED; withdrawals,
 * which would move money through the platform's account, are refused with MONEY_IN_OWN_ACCOUNT.
 * The daily reconciliation compares each connected account (its saldo, its Pix received) with the
 * merchant's ledger mirror, to the cent, and the sweep for lost notifications sweeps each
 * connected account with its merchant's scope. A connected merchant's dashboard balance is its
 * account's saldo as the worker's balance reading stored it, and bounds its payouts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { QueryTypes } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { idEnvioFor, pspChargeRef, txidFor } from '../../core/pix/apiPixIds';
import { splitSendIdFor } from '../../core/splitSends/splitSendId';
import { receivedPixEventId } from '../../db/charges';
import type { PixSweepResult } from '../../activities/charges/pixSweep';
import type { pixPaymentSweep } from '../../workflows/charges/sweep/pixPaymentSweep';
import { PIX_SWEEP_LOOKBACK_MS } from '../../workflows/charges/sweep/definitions';
import type { dailyReconciliation } from '../../workflows/reconciliations/daily';
import type { pspBalanceReading } from '../../workflows/connections/balanceReading';
import { createApiCredential } from '../../db/identity/merchantAdmin';
import { addUserToMerchant } from '../../db/identity/userAdmin';
import { Merchant } from '../../db/models';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { reserveWithdrawal } from '../../activities/withdrawals/reserve';
import { withdrawalDeps } from '../../activities/withdrawals/deps';
import { loadConfig } from '../../config';
import { pspAccountsFrom } from '../../activities/provider/accounts/pspAccounts';
import { waitFor } from '../support/env';
import { testLogger } from '../support/testLogs';
import { connectionCli } from '../support/inProcessCli';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { signedCall, waitForBatchEnd } from '../support/payouts';
import { signedInMerchant, signedInUser } from '../support/signedIn';
import { makeSandboxAccount, type MadeSandboxAccount } from '../support/sandboxAccounts';
import { testCertificates, type PkiFiles } from '../support/testCertificates';

jest.setTimeout(180_000);

let stack: IntegrationStack;
let pki: PkiFiles;
let dir: string;
let cli: ReturnType<typeof connectionCli>;

beforeAll(async () => {
  stack = await startIntegrationStack();
  pki = await testCertificates();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'connected-accounts-'));
  cli = connectionCli(stack);
});

afterAll(async () => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  await stack?.stop();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

/** An account of the sandbox PSP, with its own client certificate (test/support/sandboxAccounts.ts). */
type SandboxAccount = MadeSandboxAccount;

async function sandbox(method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${stack.sandboxUrl}${route}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function sandboxAccount(name: string, more: Record<string, unknown> = {}): Promise<SandboxAccount> {
  return makeSandboxAccount(stack.sandboxUrl, { name, ...more });
}

/** An account's balance at the PSP, in cents, as the sandbox keeps it. */
async function pspBalance(accountId: string): Promise<number> {
  const got = await sandbox('GET', `/sandbox/accounts/${accountId}`);
  expect(got.status).toBe(200);
  return got.body.balanceCents as number;
}

/**
 * `gateway connection register` for a merchant with its sandbox account's credentials: at the
 * sandbox's usual origin unless `origin` names another, with the account's own certificate unless
 * `certificateOf` lends another account's. Returns the CLI's JSON answer.
 */
async function registerConnection(
  creds: MerchantCredentials,
  account: SandboxAccount,
  opts: { origin?: string; certificateOf?: SandboxAccount } = {},
): Promise<Record<string, unknown>> {
  const origin = opts.origin ?? stack.pixApiUrl;
  const certificate = opts.certificateOf ?? account;
  const secretFile = path.join(dir, `secret-${crypto.randomUUID()}`);
  fs.writeFileSync(secretFile, `${account.clientSecret}\n`, { mode: 0o600 });
  const registered = await cli([
    'register',
    '--merchant', creds.merchantId,
    '--psp', 'efi',
    '--api-base-url', `${origin}/api/v2`,
    '--token-url', `${origin}/oauth/token`,
    '--client-id', account.clientId,
    '--client-secret-file', secretFile,
    '--pix-key', account.key,
    '--account-number', account.conta,
    '--cert-file', certificate.certFile,
    '--key-file', certificate.keyFile,
    '--ca-file', pki.caFile,
    '--json',
  ]); // prettier-ignore
  return JSON.parse(registered.output) as Record<string, unknown>;
}

/**
 * A merchant with API credentials (charges, payouts) and its own connection to `account` (the
 * account's own credentials and client certificate), its webhook registered.
 */
async function connectedMerchant(name: string, account: SandboxAccount): Promise<MerchantCredentials> {
  const creds = await stack.createMerchant({ name, payoutsEnabled: true, document: account.cnpj });
  await Merchant.update({ payoutFeeCents: 0 }, { where: { id: creds.merchantId } });
  const registered = await registerConnection(creds, account);
  // The webhook is not registered yet: the test reports it missing, and `connection webhook` registers it.
  expect(registered).toMatchObject({ status: 'ACTIVE' });
  const webhook = await cli(['webhook', '--merchant', creds.merchantId, '--json']);
  expect(webhook.ok).toBe(true);
  expect((await cli(['test', '--merchant', creds.merchantId, '--json'])).ok).toBe(true);
  return creds;
}

async function paidSellerCharge(creds: MerchantCredentials, body: Record<string, unknown>) {
  const created = await stack.api('POST', '/sellers/pix', { creds, body });
  expect(created.status).toBe(201);
  const paid = await stack.pay(created.body.id);
  expect(paid.status).toBeLessThan(300);
  await waitFor(
    async () => (await stack.api('GET', `/sellers/pix/${created.body.id}`, { creds })).body.status === 'PAID',
    'connected charge PAID',
  );
  return created.body as { id: string; amountCents: number };
}

async function chargeConnection(chargeId: string): Promise<string | null> {
  const [row] = await stack.sequelize.query<{ psp_connection_id: string | null }>(
    'SELECT psp_connection_id FROM charges WHERE id = :chargeId',
    { replacements: { chargeId }, type: QueryTypes.SELECT },
  );
  return row.psp_connection_id;
}

async function activeConnection(merchantId: string): Promise<string> {
  const [row] = await stack.sequelize.query<{ id: string }>(
    `SELECT id FROM psp_connections WHERE merchant_id = :merchantId AND status = 'ACTIVE'`,
    { replacements: { merchantId }, type: QueryTypes.SELECT },
  );
  return row.id;
}

it("a connected merchant's charge is a cob on its own account, divided by the PSP, refunded in part and paid out from there; the platform's account never holds its money", async () => {
  const account = await sandboxAccount('LOJA CONECTADA');
  const partnerAccount = await sandboxAccount('PARCEIRO CONECTADO');
  const creds = await connectedMerchant('Loja Conectada', account);
  const partner = await connectedMerchant('Parceiro Conectado', partnerAccount);
  const platformBefore = await pspBalance('default');
  const mirror = async (merchantId: string) => balance(stack.sequelize, accounts.merchantAvailable(merchantId));

  // R$ 500,00 with the stack's 1% fee (R$ 5,00) and R$ 100,00 to the partner: the PSP divides it at settlement.
  const charge = await paidSellerCharge(creds, {
    amountCents: 50_000,
    description: 'Pedido conectado',
    splits: [{ merchantId: partner.merchantId, amountCents: 10_000 }],
  });
  expect(await chargeConnection(charge.id)).toBe(await activeConnection(creds.merchantId));
  expect(await pspBalance(account.id)).toBe(39_500);
  expect(await pspBalance(partnerAccount.id)).toBe(10_000);
  expect(await pspBalance('default')).toBe(platformBefore + 500); // the platform's fee, and nothing else
  // The ledger mirrors what the PSP did, to the cent.
  expect(await mirror(creds.merchantId)).toBe(39_500);
  expect(await mirror(partner.merchantId)).toBe(10_000);

  // A partial refund: the devolução leaves the merchant's own account.
  const { client, email } = await signedInUser(stack, { emailPrefix: 'connected-owner' });
  await addUserToMerchant({ email, merchantId: creds.merchantId, role: 'owner' });
  const refund = await client.call('POST', `/charges/${charge.id}/refund`, {
    body: { amountCents: 5_000, reason: 'devolução parcial' },
    headers: { 'x-idempotency-key': `refund-${crypto.randomUUID()}` },
  });
  expect(refund.status).toBe(200);
  await waitFor(async () => {
    const read = (await client.call('GET', `/charges/${charge.id}`)).body;
    return read.refunds?.[0]?.status === 'SUCCEEDED';
  }, 'partial refund SUCCEEDED');
  expect(await pspBalance(account.id)).toBe(34_500);
  expect(await mirror(creds.merchantId)).toBe(34_500);

  // A payout batch of 100 recipients, sent from the merchant's own account.
  const payouts = await createApiCredential(
    { merchantId: creds.merchantId, scopes: ['payouts:read', 'payouts:write'], name: 'payouts' },
    stack.encryptionKey,
  );
  const items = Array.from({ length: 100 }, (_, i) => ({
    pixKey: `conectado${i}@example.com`,
    pixKeyType: 'EMAIL',
    amountCents: 100,
    recipientName: `Recebedor ${i}`,
    referenceId: `conectado-${i}`,
  }));
  const batch = await signedCall(stack, payouts, 'POST', '/v1/payouts/batches', {
    idempotencyKey: `connected-${crypto.randomUUID()}`,
    items,
  });
  expect(batch.status).toBe(201);
  const ended = await waitForBatchEnd(stack, payouts, batch.body.batchId, 120_000);
  expect(ended.status).toBe('COMPLETED');
  expect(await pspBalance(account.id)).toBe(24_500);
  expect(await mirror(creds.merchantId)).toBe(24_500);
  expect(await pspBalance(partnerAccount.id)).toBe(10_000);
  expect(await pspBalance('default')).toBe(platformBefore + 500);
});

it('refuses a split the PSP cannot make (a recipient with no account there) before anything is created', async () => {
  const account = await sandboxAccount('LOJA SPLIT');
  const creds = await connectedMerchant('Loja Split', account);
  const outsider = await stack.createMerchant({ name: 'Parceiro Fora' });
  const res = await stack.api('POST', '/sellers/pix', {
    creds,
    body: { amountCents: 10_000, splits: [{ merchantId: outsider.merchantId, amountCents: 1_000 }] },
  });
  expect(res.status).toBe(422);
  expect(res.body.error.code).toBe('SPLIT_NOT_POSSIBLE');
  expect(res.body.error.message).toContain(outsider.merchantId);
  const [{ n }] = await stack.sequelize.query<{ n: string }>(
    'SELECT count(*) AS n FROM charges WHERE merchant_id = :merchantId',
    { replacements: { merchantId: creds.merchantId }, type: QueryTypes.SELECT },
  );
  expect(Number(n)).toBe(0);
});

it("refuses a connected merchant's withdrawal with MONEY_IN_OWN_ACCOUNT: its money is in its own account already", async () => {
  const account = await sandboxAccount('LOJA SAQUE');
  const creds = await connectedMerchant('Loja Saque', account);
  await Merchant.update({ pixKey: 'saque@example.com', pixKeyType: 'EMAIL' }, { where: { id: creds.merchantId } });
  const res = await stack.api('POST', '/sellers/saques', {
    creds,
    body: { amountCents: 100 },
    headers: { 'x-idempotency-key': `saque-${crypto.randomUUID()}` },
  });
  expect(res.status).toBe(409);
  expect(res.body.error.code).toBe('MONEY_IN_OWN_ACCOUNT');
});

it('refuses the reservation itself for a connected merchant: a connection registered after the API let a withdrawal through still stops it', async () => {
  const account = await sandboxAccount('LOJA CORRIDA');
  const creds = await connectedMerchant('Loja Corrida', account);
  await Merchant.update({ pixKey: 'corrida@example.com', pixKeyType: 'EMAIL' }, { where: { id: creds.merchantId } });
  const deps = withdrawalDeps({ sequelize: stack.sequelize, provider: undefined as never, logger: testLogger('race') });
  const withdrawalId = crypto.randomUUID();
  await expect(
    reserveWithdrawal(deps, {
      withdrawalId,
      merchantId: creds.merchantId,
      amountCents: 100,
      description: null,
      idempotencyKey: null,
      userId: null,
    }),
  ).rejects.toMatchObject({ type: 'MoneyInOwnAccount', nonRetryable: true });
  const [{ n }] = await stack.sequelize.query<{ n: string }>(
    'SELECT count(*) AS n FROM withdrawals WHERE id = :withdrawalId',
    {
      replacements: { withdrawalId },
      type: QueryTypes.SELECT,
    },
  );
  expect(Number(n)).toBe(0);
});

it('with ACCOUNT_MODEL_DEFAULT=connected, a merchant with no connection takes no charge, boleto nor payout (PSP_CONNECTION_REQUIRED); a connected one goes on', async () => {
  const account = await sandboxAccount('LOJA PADRAO');
  const connected = await connectedMerchant('Loja Padrão', account);
  const unconnected = await stack.createMerchant({ name: 'Loja Sem Conta', payoutsEnabled: true });
  const directory = pspAccountsFrom(
    { ...loadConfig({ ...process.env, NODE_ENV: 'test', ...stack.workerEnv }), accountModelDefault: 'connected' },
    { platform: {} as never, sequelize: stack.sequelize, logger: testLogger('account-model-default') },
  );
  try {
    await expect(directory.forMerchant(unconnected.merchantId)).rejects.toMatchObject({
      code: 'PSP_CONNECTION_REQUIRED',
      transient: false,
    });
    expect((await directory.forMerchant(connected.merchantId)).connectionId).toBe(
      await activeConnection(connected.merchantId),
    );
  } finally {
    await directory.close();
  }

  const api = await stack.extraApi({ accountModelDefault: 'connected' });
  try {
    const payouts = await createApiCredential(
      { merchantId: unconnected.merchantId, scopes: ['payouts:read', 'payouts:write'], name: 'payouts' },
      stack.encryptionKey,
    );
    const batch = await signedCall({ ...stack, apiUrl: api.url }, payouts, 'POST', '/v1/payouts/batches', {
      idempotencyKey: `no-connection-${crypto.randomUUID()}`,
      items: [{ pixKey: 'alguem@example.com', pixKeyType: 'EMAIL', amountCents: 100, recipientName: 'Alguém' }],
    });
    expect({ status: batch.status, code: batch.body.error?.code }).toEqual({
      status: 409,
      code: 'PSP_CONNECTION_REQUIRED',
    });
    const { client, email } = await signedInUser({ apiUrl: api.url }, { emailPrefix: 'no-connection' });
    await addUserToMerchant({ email, merchantId: unconnected.merchantId, role: 'owner' });
    const boleto = await client.call('POST', '/charges', {
      body: {
        merchantId: unconnected.merchantId,
        amountCents: 1_000,
        method: 'BOLETO',
        payer: { name: 'Pagador Boleto', taxId: '52998224725' },
      },
      headers: { 'x-idempotency-key': `boleto-${crypto.randomUUID()}` },
    });
    expect({ status: boleto.status, code: boleto.body.error?.code }).toEqual({
      status: 409,
      code: 'PSP_CONNECTION_REQUIRED',
    });
  } finally {
    await api.close();
  }
});

it('a revoked connection stops its merchant only, with PSP_CONNECTION_REVOKED; other merchants keep charging', async () => {
  const revokedAccount = await sandboxAccount('LOJA REVOGADA');
  const otherAccount = await sandboxAccount('LOJA VIZINHA');
  const revoked = await connectedMerchant('Loja Revogada', revokedAccount);
  const other = await connectedMerchant('Loja Vizinha', otherAccount);
  const platform = await stack.createMerchant({ name: 'Loja Plataforma' });
  expect((await cli(['revoke', '--merchant', revoked.merchantId, '--json'])).ok).toBe(true);

  const refused = await stack.api('POST', '/sellers/pix', { creds: revoked, body: { amountCents: 1_000 } });
  expect(refused.status).toBe(409);
  expect(refused.body.error.code).toBe('PSP_CONNECTION_REVOKED');
  expect(JSON.stringify(refused.body)).not.toContain(revokedAccount.clientId);

  await paidSellerCharge(other, { amountCents: 2_000 });
  expect(await pspBalance(otherAccount.id)).toBe(1_980); // the platform's 1% went to its account at settlement
  const onPlatform = await stack.api('POST', '/sellers/pix', { creds: platform, body: { amountCents: 3_000 } });
  expect(onPlatform.status).toBe(201);
  expect(await chargeConnection(onPlatform.body.id)).toBeNull();
});

describe('reconciliation and the sweep per connection', () => {
  /** Brasília's calendar day (no daylight saving since 2019). */
  const today = () => new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);

  /** The daily reconciliation of today, as its Schedule starts it (for yesterday) at 04:00. */
  const dailyRun = () =>
    stack.temporal.workflow.execute<typeof dailyReconciliation>('dailyReconciliation', {
      workflowId: `daily-connected-${crypto.randomUUID()}`,
      taskQueue: stack.taskQueue,
      args: [{ day: today() }],
    });

  /** The merchant's reconciliations, as its owner reads them. */
  async function reportsOf(merchantId: string): Promise<any[]> {
    const { client, email } = await signedInUser(stack, { emailPrefix: 'recon-owner' });
    await addUserToMerchant({ email, merchantId, role: 'owner' });
    const listed = await client.call('GET', `/reconciliations?merchantId=${merchantId}`);
    expect(listed.status).toBe(200);
    return listed.body.data;
  }

  async function mirror(merchantId: string): Promise<number> {
    let cents = 0;
    for (const code of [accounts.merchantAvailable, accounts.merchantReserved, accounts.merchantBlocked])
      cents += await balance(stack.sequelize, code(merchantId));
    return cents;
  }

  it("a clean day: each connected account's saldo and Pix received match the ledger mirror, to the cent; the platform's reconciliation does not miss them", async () => {
    const account = await sandboxAccount('LOJA CONCILIADA');
    const creds = await connectedMerchant('Loja Conciliada', account);
    const connectionId = await activeConnection(creds.merchantId);
    const charge = await paidSellerCharge(creds, { amountCents: 2_000 });
    expect(await pspBalance(account.id)).toBe(1_980); // the platform's 1% went to its account at settlement
    expect(await mirror(creds.merchantId)).toBe(1_980);

    const run = await dailyRun();
    const reports = await reportsOf(creds.merchantId);
    // One report, for the connection: nothing of this merchant's is at the platform's account.
    expect(reports).toHaveLength(1);
    expect(run.reconciliationIds).toContain(reports[0].id);
    expect(reports[0]).toMatchObject({
      merchantId: creds.merchantId,
      pspConnectionId: connectionId,
      from: today(),
      status: 'COMPLETED',
      // The payment, and the balance.
      counts: { matched: 2, missingInLedger: 0, missingAtProvider: 0, amountMismatch: 0, healed: 0 },
      differences: [],
    });

    // The platform account's reconciliation of the same merchant: the connected charge is not on the
    // platform's statement, and is not missing from it either.
    const { client, email } = await signedInUser(stack, { emailPrefix: 'recon-platform' });
    await addUserToMerchant({ email, merchantId: creds.merchantId, role: 'owner' });
    const started = await client.call('POST', '/reconciliations', {
      body: { merchantId: creds.merchantId, from: today(), to: today() },
    });
    expect(started.status).toBe(202);
    const platformRun = await waitFor(async () => {
      const read = await client.call('GET', `/reconciliations/${started.body.id}`);
      return read.body.status !== 'RUNNING' ? read.body : undefined;
    }, 'platform reconciliation finished');
    expect(platformRun).toMatchObject({
      status: 'COMPLETED',
      pspConnectionId: null,
      counts: { matched: 0, missingInLedger: 0, missingAtProvider: 0, amountMismatch: 0, healed: 0 },
      differences: [],
    });
    expect(JSON.stringify(platformRun)).not.toContain(charge.id);

    // Every connected account of this stack reconciles to the cent (the first test's split,
    // partial refund and 100 payouts included).
    const connections = await stack.sequelize.query<{ id: string; status: string; differences: unknown[] }>(
      `SELECT psp_connection_id AS id, status, differences FROM reconciliations
       WHERE id IN (:ids) AND psp_connection_id IS NOT NULL`,
      { replacements: { ids: run.reconciliationIds }, type: QueryTypes.SELECT },
    );
    expect(connections.length).toBeGreaterThanOrEqual(1);
    for (const row of connections) expect(row).toMatchObject({ status: 'COMPLETED', differences: [] });
  });

  it('money the ledger does not know of in a connected account is reported with its exact cents, the connection and the merchant', async () => {
    // R$ 123,45 in the account before the merchant connects it: the PSP holds it, our ledger never saw it.
    const account = await sandboxAccount('LOJA COM SALDO', { openingBalanceCents: 12_345 });
    const creds = await connectedMerchant('Loja Com Saldo', account);
    const connectionId = await activeConnection(creds.merchantId);
    await paidSellerCharge(creds, { amountCents: 3_000 });
    expect(await pspBalance(account.id)).toBe(12_345 + 2_970);
    expect(await mirror(creds.merchantId)).toBe(2_970);

    await dailyRun();
    const [report] = (await reportsOf(creds.merchantId)).filter((r) => r.pspConnectionId === connectionId);
    expect(report).toMatchObject({
      merchantId: creds.merchantId,
      pspConnectionId: connectionId,
      status: 'COMPLETED',
      counts: { matched: 1, missingInLedger: 0, missingAtProvider: 0, amountMismatch: 1, healed: 0 },
      differences: [
        {
          kind: 'AMOUNT_MISMATCH',
          subject: 'BALANCE',
          providerAmountCents: 15_315,
          ledgerAmountCents: 2_970,
          healed: false,
          resolution: null,
        },
      ],
    });
    // Reported, never booked: the ledger mirror still says what the ledger did.
    expect(await mirror(creds.merchantId)).toBe(2_970);
  });

  it("a payment whose notification was lost is found by the sweep on the merchant's own account: PAID, credited once, claimed as its notification would have been", async () => {
    const account = await sandboxAccount('LOJA VARRIDA');
    const creds = await connectedMerchant('Loja Varrida', account);
    const created = await stack.api('POST', '/sellers/pix', { creds, body: { amountCents: 4_000 } });
    expect(created.status).toBe(201);
    const chargeId = created.body.id as string;
    // Paid at the merchant's account; the PSP loses the notification.
    const paid = await sandbox('POST', `/sandbox/charges/${pspChargeRef(chargeId)}/pay`, { callback: false });
    expect(paid.status).toBe(200);
    const endToEndId = paid.body.endToEndId as string;
    expect(stack.sandbox.state.callbacks.filter((c) => c.chargeId === txidFor(chargeId))).toEqual([]);

    const swept = (await stack.temporal.workflow.execute<typeof pixPaymentSweep>('pixPaymentSweep', {
      workflowId: `sweep-connected-${crypto.randomUUID()}`,
      taskQueue: stack.taskQueue,
      args: [{ lookbackMs: PIX_SWEEP_LOOKBACK_MS }],
    })) as PixSweepResult;
    expect(swept.failedConnections).toEqual([]);
    expect(swept.connections).toBeGreaterThanOrEqual(1);
    expect(swept.outcomes.SIGNALLED).toBeGreaterThanOrEqual(1);
    await waitFor(
      async () => (await stack.api('GET', `/sellers/pix/${chargeId}`, { creds })).body.status === 'PAID',
      'swept charge PAID',
    );
    const events = async () =>
      stack.sequelize.query<{ id: string; outcome: string }>(
        `SELECT id, outcome FROM provider_events WHERE type = 'pix' AND provider_charge_id = :txid`,
        { replacements: { txid: txidFor(chargeId) }, type: QueryTypes.SELECT },
      );
    // The event id of the connection's notification route: the merchant's scope.
    expect(await events()).toEqual([
      { id: receivedPixEventId(endToEndId, { merchantId: creds.merchantId }), outcome: 'SIGNALLED' },
    ]);
    // The notification arrives after all: the same event, answered from its first outcome; nothing new.
    const resent = await sandbox('POST', `/sandbox/charges/${pspChargeRef(chargeId)}/resend-callback`);
    expect(resent.status).toBe(202);
    await waitFor(
      async () => stack.sandbox.state.callbacks.some((c) => c.chargeId === txidFor(chargeId) && c.delivered),
      'the late notification delivered',
    );
    expect(await events()).toHaveLength(1);
    const [{ n }] = await stack.sequelize.query<{ n: string }>(
      'SELECT count(*) AS n FROM ledger_transactions WHERE movement_key = :key',
      { replacements: { key: `charge-paid:${chargeId}` }, type: QueryTypes.SELECT },
    );
    expect(Number(n)).toBe(1);
    expect(await pspBalance(account.id)).toBe(3_960);
    expect(await mirror(creds.merchantId)).toBe(3_960);
  });
});

describe('MED per connection (issue 37 item 6)', () => {
  async function endToEndIdOf(chargeId: string): Promise<string> {
    const [row] = await stack.sequelize.query<{ end_to_end_id: string }>(
      'SELECT end_to_end_id FROM charges WHERE id = :chargeId',
      { replacements: { chargeId }, type: QueryTypes.SELECT },
    );
    expect(row.end_to_end_id).toMatch(/^E/);
    return row.end_to_end_id;
  }

  async function infractionRow(id: string) {
    const [row] = await stack.sequelize.query<{
      psp_connection_id: string | null;
      blocked_at: Date | null;
      blocked_cents: string;
      refund_status: string | null;
    }>('SELECT psp_connection_id, blocked_at, blocked_cents, refund_status FROM med_infractions WHERE id = :id', {
      replacements: { id },
      type: QueryTypes.SELECT,
    });
    return row;
  }

  it("an infraction on a connected merchant's charge is read from its connection, shown to it only, and its devolução leaves its own account", async () => {
    const account = await sandboxAccount('LOJA MED CONECTADA');
    const creds = await connectedMerchant('Loja MED Conectada', account);
    const connectionId = await activeConnection(creds.merchantId);
    const owner = await signedInUser(stack, { emailPrefix: 'med-connected-owner' });
    await addUserToMerchant({ email: owner.email, merchantId: creds.merchantId, role: 'owner' });
    const outsider = await signedInMerchant(stack, { emailPrefix: 'med-outsider', name: 'Loja Vizinha MED' });
    const available = () => balance(stack.sequelize, accounts.merchantAvailable(creds.merchantId));
    const blocked = () => balance(stack.sequelize, accounts.merchantBlocked(creds.merchantId));

    // R$ 200,00 with the stack's 1% fee: R$ 198,00 stays in the merchant's own account.
    const charge = await paidSellerCharge(creds, { amountCents: 20_000, description: 'Pedido contestado' });
    expect(await pspBalance(account.id)).toBe(19_800);
    const platformBefore = await pspBalance('default');

    // The DICT disputes R$ 50,00 of it, at the merchant's own account.
    const opened = await sandbox('POST', `/sandbox/charges/${await endToEndIdOf(charge.id)}/infractions`, {
      amountCents: 5_000,
    });
    expect(opened.status).toBe(201);
    const synced = await owner.client.call('POST', '/med/infractions/sync', { body: { merchantId: creds.merchantId } });
    expect(synced.status).toBe(200);
    const mine = synced.body.data.find((i: any) => i.providerInfractionId === opened.body.id);
    expect(mine).toMatchObject({
      merchantId: creds.merchantId,
      chargeId: charge.id,
      status: 'OPEN',
      disputedAmountCents: 5_000,
    });
    // Stored with the connection it was read from (the sandbox's /v1 list, the platform's here, shows it too: not attributed twice).
    expect((await infractionRow(mine.id)).psp_connection_id).toBe(connectionId);
    const [{ n }] = await stack.sequelize.query<{ n: string }>(
      'SELECT count(*) AS n FROM med_infractions WHERE provider_infraction_id = :pid',
      { replacements: { pid: opened.body.id }, type: QueryTypes.SELECT },
    );
    expect(Number(n)).toBe(1);

    // The mirror holds what the PSP holds in the merchant's account: available → blocked, nothing moves between accounts.
    await waitFor(async () => (await infractionRow(mine.id)).blocked_at !== null, 'infraction blocked');
    expect(await available()).toBe(14_800);
    expect(await blocked()).toBe(5_000);
    expect(await pspBalance(account.id)).toBe(19_800);

    // Its merchant sees it; another merchant does not, by list or by id.
    const listed = await owner.client.call('GET', `/med/infractions?merchantId=${creds.merchantId}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((i: any) => i.id)).toContain(mine.id);
    const othersList = await outsider.client.call('GET', `/med/infractions?merchantId=${outsider.merchantId}`);
    expect(othersList.status).toBe(200);
    expect(othersList.body.data.map((i: any) => i.id)).not.toContain(mine.id);
    const othersRead = await outsider.client.call('GET', `/med/infractions/${mine.id}`);
    expect(othersRead.status).toBe(404);
    expect(othersRead.body.error.code).toBe('INFRACTION_NOT_FOUND');
    const othersSync = await outsider.client.call('POST', '/med/infractions/sync', {
      body: { merchantId: outsider.merchantId },
    });
    expect(othersSync.status).toBe(200);
    expect(othersSync.body.data.map((i: any) => i.id)).not.toContain(mine.id);

    // ACCEPT: answered through the merchant's own connection (Efí's defence route, which only the
    // account that received the Pix may use), and the devolução leaves the merchant's own account.
    const efiCallsBefore = stack.pixApiRequests().efi.calls.length;
    const accepted = await owner.client.call('POST', `/med/infractions/${mine.id}/analysis`, {
      body: { decision: 'ACCEPT', justification: 'golpe confirmado pelo lojista' },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ status: 'ACCEPTED', refundAmountCents: 5_000 });
    expect(stack.pixApiRequests().efi.calls.slice(efiCallsBefore)).toContain(
      `POST /v2/gn/infracoes/${opened.body.id}/defesa`,
    );
    const answered = await sandbox('GET', '/sandbox/infractions');
    expect(answered.body.infractions.find((i: any) => i.id === opened.body.id)).toMatchObject({
      status: 'ACCEPTED',
      decision: 'ACCEPT',
    });
    await waitFor(async () => (await infractionRow(mine.id)).refund_status === 'SUCCEEDED', 'devolução SUCCEEDED');
    expect(await pspBalance(account.id)).toBe(14_800);
    expect(await pspBalance('default')).toBe(platformBefore);
    expect(await available()).toBe(14_800);
    expect(await blocked()).toBe(0);
  });

  it('a connected merchant defends (Efí EM_DEFESA, IN_DEFENCE here, held); Efí upholds the claim (ACEITA): the devolução leaves its own account once, no debt anywhere', async () => {
    const account = await sandboxAccount('LOJA MED DEFESA');
    const creds = await connectedMerchant('Loja MED Defesa', account);
    const owner = await signedInUser(stack, { emailPrefix: 'med-connected-defence' });
    await addUserToMerchant({ email: owner.email, merchantId: creds.merchantId, role: 'owner' });
    const available = () => balance(stack.sequelize, accounts.merchantAvailable(creds.merchantId));
    const blocked = () => balance(stack.sequelize, accounts.merchantBlocked(creds.merchantId));
    const owed = () => balance(stack.sequelize, accounts.merchantOwed(creds.merchantId));
    const charge = await paidSellerCharge(creds, { amountCents: 10_000, description: 'Pedido defendido' });
    expect(await pspBalance(account.id)).toBe(9_900);
    const platformBefore = await pspBalance('default');
    const opened = await sandbox('POST', `/sandbox/charges/${await endToEndIdOf(charge.id)}/infractions`, {
      amountCents: 3_000,
    });
    const sync = () => owner.client.call('POST', '/med/infractions/sync', { body: { merchantId: creds.merchantId } });
    const mine = (await sync()).body.data.find((i: any) => i.providerInfractionId === opened.body.id);
    await waitFor(async () => (await infractionRow(mine.id)).blocked_at !== null, 'infraction blocked');

    const defended = await owner.client.call('POST', `/med/infractions/${mine.id}/analysis`, {
      body: { decision: 'REJECT', justification: 'o cliente recebeu o produto' },
    });
    expect(defended.body).toMatchObject({ status: 'IN_DEFENCE', parties: [] });
    expect(await blocked()).toBe(3_000);
    // The sync reads the case from the merchant's own account at Efí: still in defence.
    expect((await sync()).status).toBe(200);
    expect((await owner.client.call('GET', `/med/infractions/${mine.id}`)).body.status).toBe('IN_DEFENCE');

    expect(
      (await sandbox('POST', `/sandbox/infractions/${opened.body.id}/decision`, { outcome: 'UPHELD' })).status,
    ).toBe(200);
    expect((await sync()).status).toBe(200);
    await waitFor(async () => (await infractionRow(mine.id)).refund_status === 'SUCCEEDED', 'devolução SUCCEEDED');
    expect((await owner.client.call('GET', `/med/infractions/${mine.id}`)).body).toMatchObject({
      status: 'ACCEPTED',
      pspOutcome: 'UPHELD',
      refundAmountCents: 3_000,
    });
    // Once, from its own account; the platform's untouched; no debt.
    expect(await pspBalance(account.id)).toBe(6_900);
    expect(await pspBalance('default')).toBe(platformBefore);
    expect(await available()).toBe(6_900);
    expect(await blocked()).toBe(0);
    expect(await owed()).toBe(0);
    const [{ n }] = await stack.sequelize.query<{ n: string }>(
      'SELECT count(*) AS n FROM refunds WHERE med_infraction_id = :id',
      { replacements: { id: mine.id }, type: QueryTypes.SELECT },
    );
    expect(n).toBe('1');
  });
});

describe("balances as the connected account's saldo (issue 37 item 5)", () => {
  /** One pass of the balance reading, as its Schedule starts it every minute. */
  const readBalances = () =>
    stack.temporal.workflow.execute<typeof pspBalanceReading>('pspBalanceReading', {
      workflowId: `balance-reading-${crypto.randomUUID()}`,
      taskQueue: stack.taskQueue,
      args: [],
    });

  /** The merchant's dashboard balance, as its owner reads it. */
  async function dashboardBalance(merchantId: string): Promise<any> {
    const { client, email } = await signedInUser(stack, { emailPrefix: 'saldo-owner' });
    await addUserToMerchant({ email, merchantId, role: 'owner' });
    const stats = await client.call('GET', `/dashboard/stats?merchantId=${merchantId}`);
    expect(stats.status).toBe(200);
    return stats.body.balance;
  }

  it("a connected merchant's available balance is its account's saldo as the worker read it; before the first reading, the ledger's, said so", async () => {
    const account = await sandboxAccount('LOJA SALDO');
    const creds = await connectedMerchant('Loja Saldo', account);
    const connectionId = await activeConnection(creds.merchantId);
    await paidSellerCharge(creds, { amountCents: 2_000 });
    expect(await pspBalance(account.id)).toBe(1_980);

    // Not read yet: no PSP figure is invented.
    expect(await dashboardBalance(creds.merchantId)).toEqual({
      availableCents: 1_980,
      reservedCents: 0,
      blockedCents: 0,
      source: 'ledger',
      psp: null,
    });

    const before = Date.now();
    const pass = await readBalances();
    expect(pass.failedConnections).toEqual([]);
    expect(pass.read).toBe(pass.connections);
    const shown = await dashboardBalance(creds.merchantId);
    expect(shown).toEqual({
      availableCents: 1_980,
      reservedCents: 0,
      blockedCents: 0,
      source: 'psp',
      psp: { connectionId, saldoCents: 1_980, readAt: expect.any(String), mirrorCents: 1_980, differenceCents: 0 },
    });
    expect(Date.parse(shown.psp.readAt)).toBeGreaterThanOrEqual(before - 1_000);
  });

  it('money at the account the ledger does not know of is shown as the difference, and is the merchant’s available', async () => {
    // R$ 123,45 in the account before the merchant connects it: the PSP holds it, the ledger never saw it.
    const account = await sandboxAccount('LOJA SALDO EXTRA', { openingBalanceCents: 12_345 });
    const creds = await connectedMerchant('Loja Saldo Extra', account);
    await paidSellerCharge(creds, { amountCents: 3_000 });
    expect(await pspBalance(account.id)).toBe(12_345 + 2_970);

    await readBalances();
    expect(await dashboardBalance(creds.merchantId)).toMatchObject({
      availableCents: 15_315,
      reservedCents: 0,
      blockedCents: 0,
      source: 'psp',
      psp: { saldoCents: 15_315, mirrorCents: 2_970, differenceCents: 12_345 },
    });
    // Shown, never booked: the ledger mirror still says what the ledger did.
    expect(await balance(stack.sequelize, accounts.merchantAvailable(creds.merchantId))).toBe(2_970);
  });

  it('a payout from a connected account never reserves more than the account holds by its last reading: INSUFFICIENT_AVAILABLE_BALANCE, nothing stored', async () => {
    const account = await sandboxAccount('LOJA SALDO CURTO');
    const creds = await connectedMerchant('Loja Saldo Curto', account);
    const connectionId = await activeConnection(creds.merchantId);
    await paidSellerCharge(creds, { amountCents: 2_000 });
    await readBalances();
    // The PSP holds R$ 10,00 less than the mirror (a tariff or a block the ledger never saw; the
    // sandbox debits a created account only through flows the ledger sees, so the reading says it).
    await stack.sequelize.query(
      'UPDATE psp_balance_readings SET saldo_cents = mirror_cents - 1000 WHERE psp_connection_id = :connectionId',
      { replacements: { connectionId } },
    );
    expect(await dashboardBalance(creds.merchantId)).toMatchObject({
      availableCents: 980,
      source: 'psp',
      psp: { saldoCents: 980, mirrorCents: 1_980, differenceCents: -1_000 },
    });

    const payouts = await createApiCredential(
      { merchantId: creds.merchantId, scopes: ['payouts:read', 'payouts:write'], name: 'payouts' },
      stack.encryptionKey,
    );
    const item = (amountCents: number) => ({
      pixKey: 'saldo-curto@example.com',
      pixKeyType: 'EMAIL',
      amountCents,
      recipientName: 'Recebedor Saldo',
    });
    // Within the ledger's available (1 980), beyond the account's (980).
    const refused = await signedCall(stack, payouts, 'POST', '/v1/payouts/batches', {
      idempotencyKey: `saldo-curto-${crypto.randomUUID()}`,
      items: [item(1_000)],
    });
    expect({ status: refused.status, code: refused.body.error?.code }).toEqual({
      status: 400,
      code: 'INSUFFICIENT_AVAILABLE_BALANCE',
    });
    const [{ n }] = await stack.sequelize.query<{ n: string }>(
      'SELECT count(*) AS n FROM payout_batches WHERE merchant_id = :merchantId',
      { replacements: { merchantId: creds.merchantId }, type: QueryTypes.SELECT },
    );
    expect(Number(n)).toBe(0);
    expect(await balance(stack.sequelize, accounts.merchantReserved(creds.merchantId))).toBe(0);

    // What the account holds still goes out.
    const sent = await signedCall(stack, payouts, 'POST', '/v1/payouts/batches', {
      idempotencyKey: `saldo-curto-${crypto.randomUUID()}`,
      items: [item(980)],
    });
    expect(sent.status).toBe(201);
    expect((await waitForBatchEnd(stack, payouts, sent.body.batchId, 60_000)).status).toBe('COMPLETED');
    expect(await pspBalance(account.id)).toBe(1_000);
  });

  it("a platform-model merchant's balances stay the ledger's, read or not", async () => {
    const platform = await stack.createMerchant({ name: 'Loja Saldo Plataforma' });
    const created = await stack.api('POST', '/sellers/pix', { creds: platform, body: { amountCents: 1_000 } });
    expect(created.status).toBe(201);
    await stack.pay(created.body.id);
    await waitFor(
      async () =>
        (await stack.api('GET', `/sellers/pix/${created.body.id}`, { creds: platform })).body.status === 'PAID',
      'platform charge PAID',
    );
    await readBalances();
    expect(await dashboardBalance(platform.merchantId)).toEqual({
      availableCents: await balance(stack.sequelize, accounts.merchantAvailable(platform.merchantId)),
      reservedCents: 0,
      blockedCents: 0,
      source: 'ledger',
      psp: null,
    });
  });
});

it("refuses a connected merchant's refund larger than what its own account holds, before anything is sent (the partner's share is not taken back); up to what it holds, it is refunded", async () => {
  const account = await sandboxAccount('LOJA DEVOLVE');
  const partnerAccount = await sandboxAccount('PARCEIRO DEVOLVE');
  const creds = await connectedMerchant('Loja Devolve', account);
  const partner = await connectedMerchant('Parceiro Devolve', partnerAccount);
  const mirror = async (merchantId: string) => balance(stack.sequelize, accounts.merchantAvailable(merchantId));

  // R$ 500,00: R$ 100,00 (20%) to the partner and the platform's 1% (R$ 5,00) at settlement; R$ 395,00 stays.
  const charge = await paidSellerCharge(creds, {
    amountCents: 50_000,
    description: 'Pedido com parceiro',
    splits: [{ merchantId: partner.merchantId, amountCents: 10_000 }],
  });
  expect(await pspBalance(account.id)).toBe(39_500);

  // The owner pays most of it out from its own account: R$ 45,00 are left there.
  const payouts = await createApiCredential(
    { merchantId: creds.merchantId, scopes: ['payouts:read', 'payouts:write'], name: 'payouts' },
    stack.encryptionKey,
  );
  const batch = await signedCall(stack, payouts, 'POST', '/v1/payouts/batches', {
    idempotencyKey: `devolve-${crypto.randomUUID()}`,
    items: [
      { pixKey: 'fornecedor@example.com', pixKeyType: 'EMAIL', amountCents: 35_000, recipientName: 'Fornecedor' },
    ],
  });
  expect(batch.status).toBe(201);
  expect((await waitForBatchEnd(stack, payouts, batch.body.batchId, 60_000)).status).toBe('COMPLETED');
  expect(await pspBalance(account.id)).toBe(4_500);
  expect(await mirror(creds.merchantId)).toBe(4_500);

  const { client, email } = await signedInUser(stack, { emailPrefix: 'devolve-owner' });
  await addUserToMerchant({ email, merchantId: creds.merchantId, role: 'owner' });
  const refund = (amountCents?: number) =>
    client.call('POST', `/charges/${charge.id}/refund`, {
      body: { ...(amountCents === undefined ? {} : { amountCents }), reason: 'devolução' },
      headers: { 'x-idempotency-key': `refund-${crypto.randomUUID()}` },
    });
  const ledgerRows = async () => {
    const [{ n }] = await stack.sequelize.query<{ n: string }>('SELECT count(*) AS n FROM ledger_transactions', {
      type: QueryTypes.SELECT,
    });
    return Number(n);
  };
  const refundRows = async () =>
    stack.sequelize.query<{ status: string; amount_cents: string }>(
      'SELECT status, amount_cents FROM refunds WHERE charge_id = :chargeId',
      { replacements: { chargeId: charge.id }, type: QueryTypes.SELECT },
    );
  const returnsAtPsp = () =>
    stack.pixApiRequests().calls.filter((c) => c.startsWith('PUT ') && c.includes('/devolucao/')).length;

  // In full: the devolução would take R$ 500,00 from the account that received the Pix, which holds
  // R$ 45,00; the partner's R$ 100,00 and the platform's fee are not taken back from their accounts.
  const entriesBefore = await ledgerRows();
  const returnsBefore = returnsAtPsp();
  const full = await refund();
  expect(full.status).toBe(409);
  expect(full.body.error).toMatchObject({
    code: 'INSUFFICIENT_BALANCE_FOR_REFUND',
    message: expect.stringContaining('your own PSP account'),
    details: { merchantId: creds.merchantId },
  });
  expect(await refundRows()).toEqual([]);
  expect(await ledgerRows()).toBe(entriesBefore);
  expect(returnsAtPsp()).toBe(returnsBefore);
  expect(await pspBalance(account.id)).toBe(4_500);
  expect(await pspBalance(partnerAccount.id)).toBe(10_000);
  // One cent more than the owner holds is refused the same way.
  expect((await refund(4_501)).body.error?.code).toBe('INSUFFICIENT_BALANCE_FOR_REFUND');

  // Up to what the owner holds: refunded from its own account, the partner's share untouched.
  const held = await refund(4_500);
  expect(held.status).toBe(200);
  await waitFor(async () => {
    const read = (await client.call('GET', `/charges/${charge.id}`)).body;
    return read.refunds?.[0]?.status === 'SUCCEEDED';
  }, 'refund of what the owner holds SUCCEEDED');
  expect(returnsAtPsp()).toBe(returnsBefore + 1);
  expect(await pspBalance(account.id)).toBe(0);
  expect(await mirror(creds.merchantId)).toBe(0);
  expect(await pspBalance(partnerAccount.id)).toBe(10_000);
  expect(await mirror(partner.merchantId)).toBe(10_000);
});

describe('a split recipient at another PSP is paid by a send from the owner’s account (issue 37 item 3)', () => {
  /**
   * The sandbox is one PSP. A second PSP is simulated by the recipient's connection reaching the
   * same sandbox through another origin (https://localhost:port instead of https://127.0.0.1:port;
   * the test server certificate names both): the gateway tells PSPs apart by their API origin, so
   * to it the recipient's account is at another PSP, and Split Pix is not asked to pay it. The send
   * itself is a Pix between two accounts of the sandbox (a send to a created account's key credits
   * it when it settles), which is what a Pix to another PSP looks like from both accounts' balances.
   */
  async function connectedElsewhere(name: string, account: SandboxAccount): Promise<MerchantCredentials> {
    const creds = await stack.createMerchant({ name, payoutsEnabled: true, document: account.cnpj });
    const otherOrigin = stack.pixApiUrl.replace('127.0.0.1', 'localhost');
    expect(new URL(otherOrigin).origin).not.toBe(new URL(stack.pixApiUrl).origin);
    expect(await registerConnection(creds, account, { origin: otherOrigin })).toMatchObject({ status: 'ACTIVE' });
    return creds;
  }

  async function mirror(merchantId: string): Promise<number> {
    let cents = 0;
    for (const code of [accounts.merchantAvailable, accounts.merchantReserved, accounts.merchantBlocked])
      cents += await balance(stack.sequelize, code(merchantId));
    return cents;
  }

  async function splitSendRows(chargeId: string) {
    return stack.sequelize.query<{
      id: string;
      status: string;
      merchant_id: string;
      recipient_merchant_id: string;
      psp_connection_id: string;
      amount_cents: string;
      pix_key: string;
    }>('SELECT * FROM split_sends WHERE charge_id = :chargeId', {
      replacements: { chargeId },
      type: QueryTypes.SELECT,
    });
  }

  async function sendStats(reference: string): Promise<{ requests: number; created: number } | undefined> {
    const listed = await sandbox('GET', '/sandbox/transfers');
    return listed.body.references[idEnvioFor(reference)];
  }

  it("leaves the share in the owner's account at settlement (reserved there), sends it with the owner's connection, and each mirror equals its account to the cent; a second start sends nothing more", async () => {
    const ownerAccount = await sandboxAccount('LOJA DIVIDE FORA');
    const farAccount = await sandboxAccount('PARCEIRO OUTRO PSP');
    const owner = await connectedMerchant('Loja Divide Fora', ownerAccount);
    const far = await connectedElsewhere('Parceiro Outro PSP', farAccount);
    const ownerConnection = await activeConnection(owner.merchantId);
    const platformBefore = await pspBalance('default');

    // R$ 300,00: the platform's 1% (R$ 3,00) by Split Pix; R$ 50,00 to the partner at the other PSP by a send.
    const charge = await paidSellerCharge(owner, {
      amountCents: 30_000,
      description: 'Pedido com parceiro em outro PSP',
      splits: [{ merchantId: far.merchantId, amountCents: 5_000 }],
    });

    const [row] = await waitFor(async () => {
      const rows = await splitSendRows(charge.id);
      return rows.length === 1 && rows[0].status === 'SENT' ? rows : undefined;
    }, 'split send SENT');
    expect(row).toMatchObject({
      id: splitSendIdFor(charge.id, far.merchantId),
      merchant_id: owner.merchantId,
      recipient_merchant_id: far.merchantId,
      // Sent from the owner's own account, through its connection, to the partner's connection's key.
      psp_connection_id: ownerConnection,
      pix_key: farAccount.key,
    });
    expect(Number(row.amount_cents)).toBe(5_000);

    // The sandbox's balances: the fee went to the platform at settlement, the share from the owner's account to the partner's.
    expect(await pspBalance(ownerAccount.id)).toBe(30_000 - 300 - 5_000);
    expect(await pspBalance(farAccount.id)).toBe(5_000);
    expect(await pspBalance('default')).toBe(platformBefore + 300);
    // The ledger mirrors each account to the cent; nothing is left reserved in the owner's.
    expect(await mirror(owner.merchantId)).toBe(await pspBalance(ownerAccount.id));
    expect(await mirror(far.merchantId)).toBe(await pspBalance(farAccount.id));
    expect(await balance(stack.sequelize, accounts.merchantReserved(owner.merchantId))).toBe(0);
    expect(await balance(stack.sequelize, accounts.merchantAvailable(far.merchantId))).toBe(5_000);
    expect((await sendStats(row.id))?.created).toBe(1);

    // The API shows the charge's split as it was asked for.
    const read = await stack.api('GET', `/sellers/pix/${charge.id}`, { creds: owner });
    expect(read.body.status).toBe('PAID');

    // The settle and the send again (a duplicated start, a rerun of the settlement): nothing moves twice.
    await stack.pay(charge.id).catch(() => undefined);
    const again = await stack.temporal.workflow.execute('splitSend', {
      workflowId: `split-send-again-${crypto.randomUUID()}`,
      taskQueue: stack.taskQueue,
      args: [{ splitSendId: row.id }],
    });
    expect(again).toEqual({ splitSendId: row.id, status: 'SENT' });
    const [{ n }] = await stack.sequelize.query<{ n: string }>(
      `SELECT count(*) AS n FROM ledger_transactions WHERE movement_key IN (:keys)`,
      {
        replacements: { keys: [`charge-paid:${charge.id}`, `split-send-complete:${row.id}`] },
        type: QueryTypes.SELECT,
      },
    );
    expect(Number(n)).toBe(2);
    expect((await sendStats(row.id))?.created).toBe(1);
    expect(await pspBalance(ownerAccount.id)).toBe(30_000 - 300 - 5_000);
    expect(await pspBalance(farAccount.id)).toBe(5_000);

    // The connection's reconciliation: the send is a known transfer (matched), both balances match.
    const today = new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);
    const run = await stack.temporal.workflow.execute<typeof dailyReconciliation>('dailyReconciliation', {
      workflowId: `daily-split-send-${crypto.randomUUID()}`,
      taskQueue: stack.taskQueue,
      args: [{ day: today }],
    });
    const reports = await stack.sequelize.query<{
      merchant_id: string;
      status: string;
      matched: number;
      missing_in_ledger: number;
      missing_at_provider: number;
      amount_mismatch: number;
      differences: unknown[];
    }>(
      `SELECT merchant_id, status, matched_count AS matched, missing_in_ledger_count AS missing_in_ledger,
         missing_at_provider_count AS missing_at_provider, amount_mismatch_count AS amount_mismatch, differences
       FROM reconciliations WHERE id IN (:ids) AND merchant_id IN (:merchants) AND psp_connection_id IS NOT NULL`,
      {
        replacements: { ids: run.reconciliationIds, merchants: [owner.merchantId, far.merchantId] },
        type: QueryTypes.SELECT,
      },
    );
    const byMerchant = new Map(reports.map((r) => [r.merchant_id, r]));
    const clean = {
      status: 'COMPLETED',
      missing_in_ledger: 0,
      missing_at_provider: 0,
      amount_mismatch: 0,
      differences: [],
    };
    // The owner's: its payment, its send (a SPLIT_SEND transfer, known, not skipped) and its balance.
    expect(byMerchant.get(owner.merchantId)).toMatchObject({ ...clean, matched: 3 });
    // The partner's: its balance (the Pix it received is no charge of its own).
    expect(byMerchant.get(far.merchantId)).toMatchObject({ ...clean, matched: 1 });
  });

  it('still refuses a recipient with no connection at all (SPLIT_NOT_POSSIBLE): its money would pass through the platform’s account', async () => {
    const account = await sandboxAccount('LOJA SEM PARCEIRO');
    const owner = await connectedMerchant('Loja Sem Parceiro', account);
    const outsider = await stack.createMerchant({ name: 'Parceiro Sem Conta' });
    const res = await stack.api('POST', '/sellers/pix', {
      creds: owner,
      body: { amountCents: 10_000, splits: [{ merchantId: outsider.merchantId, amountCents: 1_000 }] },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('SPLIT_NOT_POSSIBLE');
  });
});

describe("a connection registered with another account's certificate", () => {
  it('fails its own merchant only: its charge is refused by the PSP, its neighbour keeps charging on its own account', async () => {
    const account = await sandboxAccount('LOJA CERTIFICADO TROCADO');
    const neighbourAccount = await sandboxAccount('LOJA CERTIFICADO CERTO');
    const neighbour = await connectedMerchant('Loja Certificado Certo', neighbourAccount);
    const creds = await stack.createMerchant({ name: 'Loja Certificado Trocado', document: account.cnpj });
    // The account's own credentials, with the neighbour account's certificate.
    const registered = await registerConnection(creds, account, { certificateOf: neighbourAccount });
    expect(registered).toMatchObject({
      status: 'ACTIVE',
      lastTest: { token: 'CERTIFICATE_REFUSED' },
    });

    const refused = await stack.api('POST', '/sellers/pix', { creds, body: { amountCents: 1_000 } });
    expect(refused.status).toBe(502);
    expect(refused.body.error.code).toBe('PROVIDER_ERROR');
    expect(JSON.stringify(refused.body)).not.toContain(account.clientId);

    await paidSellerCharge(neighbour, { amountCents: 2_000 });
    expect(await pspBalance(neighbourAccount.id)).toBe(1_980);
    expect(await pspBalance(account.id)).toBe(0);
  });
});

it("a connected merchant's boleto is issued at its own account (Efí's API Cobranças), paid into it, and mirrored by the ledger; the platform's account holds none of it", async () => {
  const account = await sandboxAccount('LOJA BOLETO');
  const creds = await connectedMerchant('Loja Boleto', account);
  const { client, email } = await signedInUser(stack, { emailPrefix: 'connected-boleto' });
  await addUserToMerchant({ email, merchantId: creds.merchantId, role: 'owner' });
  const platformBefore = await pspBalance('default');
  const payer = { name: 'Pagador Boleto', taxId: '52998224725' };

  const created = await client.call('POST', '/charges', {
    body: { merchantId: creds.merchantId, amountCents: 12_345, method: 'BOLETO', payer },
    headers: { 'x-idempotency-key': `boleto-${crypto.randomUUID()}` },
  });
  expect(created.status).toBe(201);
  const chargeId = created.body.id as string;
  // Issued on the merchant's connection, so confirmation and cancellation ask that account.
  expect(await chargeConnection(chargeId)).toBe(await activeConnection(creds.merchantId));
  const [row] = await stack.sequelize.query<{
    boleto_provider_id: string;
    boleto_digitable_line: string;
    fee_cents: number;
  }>('SELECT boleto_provider_id, boleto_digitable_line, fee_cents FROM charges WHERE id = :chargeId', {
    replacements: { chargeId },
    type: QueryTypes.SELECT,
  });
  expect(row.boleto_provider_id).toMatch(/^\d+$/); // Efí's charge_id
  expect(row.boleto_digitable_line).toMatch(/^\d{47}$/);
  // The charge's fee is what the PSP divides for the platform: nothing (no repasse on a connected boleto).
  expect(Number(row.fee_cents)).toBe(0);

  // The payer pays the barcode; Efí notifies the connection's route, and the gateway reads the account.
  const paid = await sandbox('POST', `/sandbox/boletos/${chargeId}/pay`, {});
  expect(paid.status).toBe(200);
  await waitFor(
    async () => (await client.call('GET', `/charges/${chargeId}`)).body.status === 'PAID',
    'connected boleto PAID',
  );
  // Efí's notice is form-encoded (`notification=<token>`): the route took it at the first attempt.
  const notices = await sandbox('GET', `/sandbox/callbacks?boletoId=${paid.body.id as string}`);
  expect((notices.body.attempts as { httpStatus: number | null }[]).map((a) => a.httpStatus)).toEqual([200]);

  // The whole amount is at the merchant's own account; the platform's has none of it.
  expect(await pspBalance(account.id)).toBe(12_345);
  expect(await pspBalance('default')).toBe(platformBefore);
  // The ledger mirrors it to the cent (no platform fee: the PSP took none).
  expect(await balance(stack.sequelize, accounts.merchantAvailable(creds.merchantId))).toBe(12_345);
});

it("a connected boleto paid by barcode whose notice Efí lost is found by the minute sweep in the account's list of billets paid: PAID, credited once, by the notice's own claim path", async () => {
  const account = await sandboxAccount('LOJA BOLETO VARRIDO');
  const creds = await connectedMerchant('Loja Boleto Varrido', account);
  const { client, email } = await signedInUser(stack, { emailPrefix: 'connected-boleto-swept' });
  await addUserToMerchant({ email, merchantId: creds.merchantId, role: 'owner' });
  const created = await client.call('POST', '/charges', {
    body: {
      merchantId: creds.merchantId,
      amountCents: 7_700,
      method: 'BOLETO',
      payer: { name: 'Pagador Varrido', taxId: '52998224725' },
    },
    headers: { 'x-idempotency-key': `boleto-${crypto.randomUUID()}` },
  });
  expect(created.status).toBe(201);
  const chargeId = created.body.id as string;
  await waitFor(
    async () => (await client.call('GET', `/charges/${chargeId}`)).body.boleto?.digitableLine != null,
    'the boleto issued',
  );
  // Paid by barcode into the merchant's account; Efí's notice is lost.
  const paid = await sandbox('POST', `/sandbox/boletos/${chargeId}/pay`, { callback: false });
  expect(paid.status).toBe(200);
  expect((await sandbox('GET', `/sandbox/callbacks?boletoId=${paid.body.id as string}`)).body.attempts).toEqual([]);

  const sweep = () =>
    stack.temporal.workflow.execute<typeof pixPaymentSweep>('pixPaymentSweep', {
      workflowId: `sweep-connected-boleto-${crypto.randomUUID()}`,
      taskQueue: stack.taskQueue,
      args: [{ lookbackMs: PIX_SWEEP_LOOKBACK_MS }],
    }) as Promise<PixSweepResult>;
  const swept = await sweep();
  // Other tests' connections may fail on purpose (a wrong certificate); this one was read.
  expect(swept.failedConnections).not.toContain(await activeConnection(creds.merchantId));
  await waitFor(
    async () => (await client.call('GET', `/charges/${chargeId}`)).body.status === 'PAID',
    'swept boleto PAID',
  );
  // Claimed once, as the notice would have been (this pass or the worker's own minute pass took it).
  const events = await stack.sequelize.query<{ id: string; outcome: string | null }>(
    `SELECT id, outcome FROM provider_events WHERE id LIKE :prefix`,
    { replacements: { prefix: `boleto-notice:${creds.merchantId}:${chargeId}:%` }, type: QueryTypes.SELECT },
  );
  expect(events).toEqual([{ id: `boleto-notice:${creds.merchantId}:${chargeId}:sweep`, outcome: 'SIGNALLED' }]);
  // A PAID boleto is no longer looked for: the next pass takes nothing.
  expect((await sweep()).boletosTaken).toBe(0);
  const [{ n }] = await stack.sequelize.query<{ n: string }>(
    'SELECT count(*) AS n FROM ledger_transactions WHERE movement_key = :key',
    { replacements: { key: `charge-paid:${chargeId}` }, type: QueryTypes.SELECT },
  );
  expect(Number(n)).toBe(1);
  expect(await pspBalance(account.id)).toBe(7_700);
  expect(await balance(stack.sequelize, accounts.merchantAvailable(creds.merchantId))).toBe(7_700);
});

it("a connected merchant's boleto by POST /boletos is at its own account too, and its cancellation cancels it there", async () => {
  const account = await sandboxAccount('LOJA BOLETO CANCELADO');
  const creds = await connectedMerchant('Loja Boleto Cancelado', account);
  const { client, email } = await signedInUser(stack, { emailPrefix: 'connected-boleto-cancel' });
  await addUserToMerchant({ email, merchantId: creds.merchantId, role: 'owner' });
  const dueDate = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
  const created = await client.call('POST', '/boletos', {
    body: {
      merchantId: creds.merchantId,
      items: [{ amountCents: 2_500, dueDate, payer: { name: 'Pagador Boleto', taxId: '52998224725' } }],
    },
    headers: { 'x-idempotency-key': `boleto-${crypto.randomUUID()}` },
  });
  expect(created.status).toBe(201);
  const chargeId = created.body.boletos[0].id as string;
  expect(await chargeConnection(chargeId)).toBe(await activeConnection(creds.merchantId));
  const [fee] = await stack.sequelize.query<{ fee_cents: number }>(
    'SELECT fee_cents FROM charges WHERE id = :chargeId',
    {
      replacements: { chargeId },
      type: QueryTypes.SELECT,
    },
  );
  expect(Number(fee.fee_cents)).toBe(0); // as the PSP divides nothing for the platform

  const cancelled = await client.call('POST', `/charges/${chargeId}/cancel`, { body: { reason: 'pedido desfeito' } });
  expect(cancelled.status).toBeLessThan(300);
  await waitFor(
    async () => (await client.call('GET', `/charges/${chargeId}`)).body.status === 'CANCELED',
    'connected boleto CANCELLED',
  );
  // Cancelled at the merchant's account: it can no longer be paid there.
  const pay = await sandbox('POST', `/sandbox/boletos/${chargeId}/pay`, {});
  expect(pay.status).toBe(409);
  expect(await pspBalance(account.id)).toBe(0);
});

it("a connected merchant's batch of boletos (POST /boletos, several items) is issued at its own account, each with fee 0 like a single one", async () => {
  const account = await sandboxAccount('LOJA LOTE BOLETOS');
  const creds = await connectedMerchant('Loja Lote Boletos', account);
  const { client, email } = await signedInUser(stack, { emailPrefix: 'connected-boleto-batch' });
  await addUserToMerchant({ email, merchantId: creds.merchantId, role: 'owner' });
  const dueDate = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
  const payer = { name: 'Pagador Lote', taxId: '52998224725' };
  const created = await client.call('POST', '/boletos', {
    body: {
      merchantId: creds.merchantId,
      items: [
        { amountCents: 1_100, dueDate, payer },
        { amountCents: 2_200, dueDate, payer },
      ],
    },
    headers: { 'x-idempotency-key': `boleto-batch-${crypto.randomUUID()}` },
  });
  expect(created.status).toBe(202);
  const batchId = created.body.batchId as string;
  const batch = await waitFor(async () => {
    const read = await client.call('GET', `/boletos/batches/${batchId}`);
    return read.body.status === 'PROCESSING' ? null : read.body;
  }, 'the batch issued');
  expect(batch.status).toBe('COMPLETED');
  const chargeIds = (batch.items as { chargeId: string }[]).map((i) => i.chargeId);
  expect(chargeIds).toHaveLength(2);
  const connectionId = await activeConnection(creds.merchantId);
  const rows = await stack.sequelize.query<{ fee_cents: string; psp_connection_id: string; amount_cents: string }>(
    'SELECT fee_cents, psp_connection_id, amount_cents FROM charges WHERE id IN (:chargeIds) ORDER BY amount_cents',
    { replacements: { chargeIds }, type: QueryTypes.SELECT },
  );
  expect(rows.map((r) => [Number(r.amount_cents), Number(r.fee_cents), r.psp_connection_id])).toEqual([
    [1_100, 0, connectionId],
    [2_200, 0, connectionId],
  ]);
  // Both are Efí charges at the merchant's own account.
  const atAccount = [...stack.sandbox.state.boletos.values()].filter((r) => chargeIds.includes(r.boleto.reference));
  expect(atAccount.map((r) => r.efi?.accountId)).toEqual([account.id, account.id]);
});

it("a connected boleto's issue is idempotent by the charge id: Efí's answer to the create is lost once, and the retry finds the first charge (custom_id) instead of registering a second", async () => {
  const account = await sandboxAccount('LOJA BOLETO PERDIDO');
  const creds = await connectedMerchant('Loja Boleto Perdido', account);
  const { client, email } = await signedInUser(stack, { emailPrefix: 'connected-boleto-lost' });
  await addUserToMerchant({ email, merchantId: creds.merchantId, role: 'owner' });
  const payer = { name: 'Pagador Boleto', taxId: '52998224725' };
  const atEfi = (chargeId: string) =>
    [...stack.sandbox.state.boletos.values()].filter((r) => r.boleto.reference === chargeId);

  // The create's first answer is lost after the sandbox made the charge; the retry looks first.
  const faults = { dropFirst: 1, paths: ['/cobrancas/v1/charge/one-step'] };
  expect((await sandbox('POST', '/sandbox/faults', faults)).status).toBe(200);
  let chargeId: string;
  try {
    const created = await client.call('POST', '/charges', {
      body: { merchantId: creds.merchantId, amountCents: 4_321, method: 'BOLETO', payer },
      headers: { 'x-idempotency-key': `boleto-${crypto.randomUUID()}` },
    });
    expect(created.status).toBeLessThan(300);
    chargeId = created.body.id as string;
    await waitFor(async () => {
      const [row] = await stack.sequelize.query<{ boleto_provider_id: string | null }>(
        'SELECT boleto_provider_id FROM charges WHERE id = :chargeId',
        { replacements: { chargeId }, type: QueryTypes.SELECT },
      );
      return row?.boleto_provider_id != null;
    }, 'the boleto recorded');
  } finally {
    await sandbox('DELETE', '/sandbox/faults');
  }
  // The create did happen once (its answer was lost), and only once.
  const made = atEfi(chargeId);
  expect(made).toHaveLength(1);
  const [row] = await stack.sequelize.query<{ boleto_provider_id: string }>(
    'SELECT boleto_provider_id FROM charges WHERE id = :chargeId',
    { replacements: { chargeId }, type: QueryTypes.SELECT },
  );
  expect(row.boleto_provider_id).toBe(String(made[0].efi?.chargeId));

  // And it is that boleto the payer pays.
  expect((await sandbox('POST', `/sandbox/boletos/${chargeId}/pay`, {})).status).toBe(200);
  await waitFor(
    async () => (await client.call('GET', `/charges/${chargeId}`)).body.status === 'PAID',
    'the reused boleto PAID',
  );
  expect(await pspBalance(account.id)).toBe(4_321);
});
