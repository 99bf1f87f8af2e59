/**
 * Issue 38's "done when", end to end on the Java time-skipping server: a charge split between two
 * merchants, withdrawn by one and paid out by the other, then claimed in full. What each has
 * available is blocked at once and the rest owed; later receipts recover into blocked; the alerts
 * go 48, 24 and 6 h before the PSP's 7-day deadline (days skipped, not waited); then each outcome
 * (one test each, the same set-up): the claim upheld (the devolução paid once from what was held
 * and recovered, the platform advancing what is still owed: at the deadline unanswered, or by the
 * PSP over the merchant's defence) and the defence winning at the PSP (everything released, debts
 * cancelled). MED 2.0: the receiving PSP decides a defended case (the sandbox's decision control,
 * read by the next sync). The ledger invariant is asserted after every step and each
 * merchant's balance is traced: the table is written to the run's log directory (med-trace.md)
 * and to the test logger.
 *
 * Real: the gateway's workflows and activities on a database of the file's own (the sync starts
 * a workflow for every OPEN infraction it can see, so the shared one would pull other files'
 * cases into this server), the bundled sandbox over HTTP as the PSP (its own API /v1 through
 * HttpPixProvider, as PIX_TRANSFERS_API=sandbox does for transfers and MED), and the API in this
 * process on the file's server (POST /med/infractions/sync, GET /med/infractions/{id}, POST
 * .../defence, GET .../timeline, as the owner's dashboard). Charges are confirmed to their workflow
 * as the PSP's webhook route would; withdrawals and payout batches run by their workflows. The
 * sandbox's clock follows the test server's (it sets the infraction's deadline), since the file's
 * server keeps the days an earlier test skipped.
 *
 * Each merchant's balances are read as its dashboard reads them, GET /dashboard/balance/lines,
 * which explains them line by line: each account's lines must sum to its balance and agree with
 * the ledger (`explained`); the note's table adds every merchant's lines.
 *
 * The outcome step is a small function (`outcomes`): the default ACCEPT at the deadline, or the
 * defence (IN_DEFENCE, held) then the PSP's decision of it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@temporalio/client';
import { QueryTypes } from 'sequelize';
import { HttpPixProvider } from '../../activities/provider/httpPixProvider';
import { createApp } from '../../api/app';
import type { TimelineView } from '../../api/med/schema';
import { accounts } from '../../core/ledger/accounts';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { addUserToMerchant, createUser } from '../../db/identity/userAdmin';
import { createSandboxApp, type SandboxApp } from '../../sandbox/app';
import { chargeWorkflowId, issueChargeUpdate, paymentConfirmedSignal } from '../../workflows/charges/definitions';
import type { ChargeLifecycleInput } from '../../workflows/charges/types';
import { medInfractionWorkflowId } from '../../workflows/med/definitions';
import { payoutBatchWorkflowId, reserveBatchUpdate } from '../../workflows/payouts/definitions';
import { requestWithdrawalUpdate, withdrawalWorkflowId } from '../../workflows/withdrawals/definitions';
import { startMailSink, type MailSink } from '../../scripts/lib/mailSink';
import { accessTokenMinter } from '../support/accessTokens';
import { AppClient } from '../support/appClient';
import { waitFor } from '../support/env';
import { stageBatch } from '../support/stagedBatch';
import { stackApiDeps } from '../support/integrationStack';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { recordIssuedSecrets, testLogFile, testLogger } from '../support/testLogs';
import { useWorkflowEnv } from '../support/workflowEnv';

jest.setTimeout(180_000);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** The PSP's analysis window (MED 2.0: 7 days), set on the sandbox's infraction. */
const PSP_DEADLINE_SECONDS = 7 * 86_400;
const FEE_BPS = 100;

const wf = useWorkflowEnv({ ownDatabase: true });
const log = testLogger('med-trace');

let sandbox: SandboxApp;
let sandboxServer: http.Server;
let sandboxUrl: string;
let provider: HttpPixProvider;
/** The test server's clock minus the wall clock: the sandbox reads its time through it. */
let clockOffsetMs = 0;
/**
 * A plain client of the file's server. The environment's own client lets the server skip time
 * while it waits for a result, to whatever timer is next (any workflow's): waiting for a receipt's
 * charge would then run an open case to its deadline. Here days pass only where the test skips them.
 */
let client: Client;
/** The SMTP server the alert e-mails go to (a mail that cannot be sent keeps its workflow retrying, which holds the skipped clock). */
let mail: MailSink;
const traces: string[] = [];

beforeAll(async () => {
  const apiKey = `sbx_${crypto.randomBytes(8).toString('hex')}`;
  const callbackSecret = crypto.randomBytes(24).toString('hex');
  recordIssuedSecrets('sandbox keys (provider API key, callback secret)', [apiKey, callbackSecret]);
  sandbox = createSandboxApp({
    apiKey,
    callbackSecret,
    logger: testLogger('sandbox-test'),
    now: () => new Date(Date.now() + clockOffsetMs),
    // No API to call back here: the test confirms each payment to its workflow as the webhook route would.
    callbackRetryDelaysMs: [],
    devolucaoSettleMs: 0,
    efiSendSettleMs: 0,
  });
  sandboxServer = http.createServer(sandbox.app);
  await new Promise<void>((r) => sandboxServer.listen(0, '127.0.0.1', r));
  sandboxUrl = `http://127.0.0.1:${(sandboxServer.address() as AddressInfo).port}`;
  provider = new HttpPixProvider({ baseUrl: sandboxUrl, apiKey, timeoutMs: 5_000 });
  client = new Client({ connection: wf.env.connection, namespace: wf.env.namespace });
  mail = await startMailSink({ port: 0 });
});

afterAll(async () => {
  await mail?.stop();
  sandbox?.stop();
  sandboxServer?.closeAllConnections();
  await new Promise((r) => sandboxServer?.close(r));
  const file = testLogFile('med-trace.md');
  if (file && traces.length) fs.writeFileSync(file, traces.join('\n\n') + '\n');
});

afterEach(async () => {
  await assertLedgerInvariant(wf.sequelize);
});

async function followServerClock(): Promise<void> {
  clockOffsetMs = (await wf.env.currentTimeMs()) - Date.now();
}

async function sandboxCall(method: string, path: string, body?: unknown) {
  const res = await fetch(`${sandboxUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

// --- a merchant's balance, explained line by line by the API (GET /dashboard/balance/lines) ----

interface Balances {
  available: number;
  reserved: number;
  blocked: number;
  owed: number;
}

interface BalanceLine {
  account: keyof Balances;
  amountCents: number;
  balanceAfterCents: number;
  kind: string;
  reference: { type: string; id: string };
}

/**
 * What the merchant's dashboard reads of its balances: every line (all pages; answered oldest
 * first) and the balances. Asserted here: each account's lines sum to its balance, the newest line
 * of each ends at it, and the ledger's own accounts read the same.
 */
async function explained(
  dashboard: AppClient,
  merchantId: string,
): Promise<{ balances: Balances; lines: BalanceLine[] }> {
  const newestFirst: BalanceLine[] = [];
  let balances: Balances | undefined;
  let cursor: string | null = null;
  do {
    const res = await dashboard.call(
      'GET',
      `/dashboard/balance/lines?merchantId=${merchantId}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(res.status).toBe(200);
    const b = res.body.balances;
    balances ??= { available: b.availableCents, reserved: b.reservedCents, blocked: b.blockedCents, owed: b.owedCents };
    newestFirst.push(...res.body.data);
    cursor = res.body.pagination.nextCursor;
  } while (cursor);
  for (const account of ['available', 'reserved', 'blocked', 'owed'] as const) {
    const own = newestFirst.filter((l) => l.account === account);
    expect({
      account,
      sum: own.reduce((sum, l) => sum + l.amountCents, 0),
      last: own[0]?.balanceAfterCents ?? 0,
    }).toEqual({
      account,
      sum: balances![account],
      last: balances![account],
    });
  }
  expect(balances).toEqual(await ledgerBalances(merchantId));
  return { balances: balances!, lines: newestFirst.reverse() };
}

async function ledgerBalances(merchantId: string): Promise<Balances> {
  const of = (code: string) => balance(wf.sequelize, code);
  return {
    available: await of(accounts.merchantAvailable(merchantId)),
    reserved: await of(accounts.merchantReserved(merchantId)),
    blocked: await of(accounts.merchantBlocked(merchantId)),
    owed: await of(accounts.merchantOwed(merchantId)),
  };
}

// --- the trace: step × merchant, and the platform's MED accounts --------------------------------

/** The platform's accounts in the table: shared by the file's two scenarios, so each shows its change since its own start. */
const PLATFORM = [
  { label: 'med_claims', code: accounts.medClaims },
  { label: 'fees', code: accounts.platformFees },
  { label: 'provider_clearing', code: accounts.providerClearing },
];

const platformBalances = () => Promise.all(PLATFORM.map((a) => balance(wf.sequelize, a.code)));

class Trace {
  private readonly rows: string[] = [];
  private baseline: number[] = PLATFORM.map(() => 0);
  constructor(
    private readonly title: string,
    private readonly merchants: { label: string; id: string; dashboard: AppClient }[],
  ) {}

  /** Asserts the ledger invariant and each merchant's balances, and adds the step's row. */
  async step(step: string, expected: Record<string, Balances>): Promise<void> {
    await assertLedgerInvariant(wf.sequelize);
    const cells: string[] = [];
    for (const m of this.merchants) {
      const { balances: b } = await explained(m.dashboard, m.id);
      cells.push(`${b.available}`, `${b.reserved}`, `${b.blocked}`, `${b.owed}`);
      expect({ step, merchant: m.label, ...b }).toEqual({ step, merchant: m.label, ...expected[m.label] });
    }
    const platform = await platformBalances();
    cells.push(...platform.map((cents, i) => `${cents - this.baseline[i]}`));
    this.rows.push(`| ${step} | ${cells.join(' | ')} |`);
  }

  /** Before the scenario's first money moves: the platform's columns are counted from here. */
  async start(): Promise<void> {
    this.baseline = await platformBalances();
  }

  /** The step table, then each merchant's lines as the API explains them (oldest first). */
  async markdown(): Promise<string> {
    const heads = [
      ...this.merchants.flatMap((m) => ['available', 'reserved', 'blocked', 'owed'].map((c) => `${m.label} ${c}`)),
      ...PLATFORM.map((a) => `Δ ${a.label}`),
    ];
    const out = [
      `### ${this.title} (cents)`,
      '',
      `| step | ${heads.join(' | ')} |`,
      `|${' --- |'.repeat(heads.length + 1)}`,
      ...this.rows,
    ];
    for (const m of this.merchants) {
      const { lines } = await explained(m.dashboard, m.id);
      out.push(
        '',
        `#### ${m.label}: GET /dashboard/balance/lines, oldest first`,
        '',
        '| kind | reference | account | amount | balance after |',
        '| --- | --- | --- | --- | --- |',
        ...lines.map(
          (l) =>
            `| ${l.kind} | ${l.reference.type} ${l.reference.id.slice(0, 8)} | ${l.account} | ${l.amountCents} | ${l.balanceAfterCents} |`,
        ),
      );
    }
    return out.join('\n');
  }
}

// --- money set up through the gateway's own workflows and the sandbox --------------------------

const feeOf = (amountCents: number) => Math.round((amountCents * FEE_BPS) / 10_000);

/** A Pix charge issued at the sandbox, paid there, and confirmed to its workflow (the webhook route's signal). */
async function paidCharge(
  taskQueue: string,
  merchantId: string,
  amountCents: number,
  splits: { merchantId: string; amountCents: number }[] = [],
): Promise<{ chargeId: string; providerChargeId: string; endToEndId: string }> {
  const args: ChargeLifecycleInput = {
    chargeId: crypto.randomUUID(),
    merchantId,
    amountCents,
    feeCents: feeOf(amountCents),
    description: 'pedido MED trace',
    externalRef: null,
    metadata: null,
    splits: splits.map((s) => ({ ...s, percentage: 0 })),
    expiresAt: new Date((await wf.env.currentTimeMs()) + 30 * 60_000).toISOString(),
    idempotencyKey: null,
    webhook: null,
  };
  const handle = await client.workflow.start('chargeLifecycle', {
    taskQueue,
    workflowId: chargeWorkflowId(args.chargeId),
    args: [args],
  });
  const issued = await handle.executeUpdate(issueChargeUpdate);
  const paid = await sandboxCall('POST', `/sandbox/charges/${issued.providerChargeId}/pay`, { callback: false });
  expect(paid.status).toBe(200);
  await handle.signal(paymentConfirmedSignal, {
    providerChargeId: paid.body.id,
    endToEndId: paid.body.endToEndId,
    amountCents: paid.body.amountCents,
    paidAt: paid.body.paidAt,
    payer: paid.body.payer,
  });
  expect((await handle.result()).status).toBe('PAID');
  return { chargeId: args.chargeId, providerChargeId: issued.providerChargeId, endToEndId: paid.body.endToEndId };
}

async function withdrawn(taskQueue: string, merchantId: string, amountCents: number): Promise<void> {
  const withdrawalId = crypto.randomUUID();
  const handle = await client.workflow.start('withdrawalLifecycle', {
    taskQueue,
    workflowId: withdrawalWorkflowId(withdrawalId),
    args: [{ withdrawalId, merchantId, amountCents, description: null, idempotencyKey: null, userId: null }],
  });
  await handle.executeUpdate(requestWithdrawalUpdate);
  expect(await handle.result()).toEqual({ withdrawalId, status: 'COMPLETED' });
}

/** A payout batch as the API stages it (status CREATED, items PENDING), then run by its workflow. */
async function paidOut(taskQueue: string, merchantId: string, itemsCents: number[]): Promise<void> {
  const batchId = await stageBatch(merchantId, itemsCents, {
    description: 'fornecedores',
    recipient: (i) => ({ pixKey: `fornecedor${i}@trace.com.br`, name: `Fornecedor ${i}` }),
  });
  const handle = await client.workflow.start('payoutBatch', {
    taskQueue,
    workflowId: payoutBatchWorkflowId(batchId),
    args: [
      { batchId, merchantId, itemsCount: itemsCents.length, chunkSize: 10, parallelChunks: 1, itemConcurrency: 2 },
    ],
  });
  await handle.executeUpdate(reserveBatchUpdate);
  expect(await handle.result()).toMatchObject({ batchId, status: 'COMPLETED', releasedAmountCents: 0 });
}

async function merchantWithOwner(name: string) {
  const { merchantId } = await createMerchantWithCredential(
    wf.sequelize,
    {
      name,
      pixKey: `financeiro+${crypto.randomUUID().slice(0, 8)}@trace.com.br`,
      pixKeyType: 'EMAIL',
      withdrawalFeeCents: 0,
      payoutsEnabled: true,
    },
    crypto.randomBytes(32).toString('hex'),
  );
  const email = `dono+${crypto.randomUUID().slice(0, 8)}@trace.com.br`;
  const user = await createUser({ email, name: `Dono ${name}`, password: 'senha-forte-de-teste' });
  await addUserToMerchant({ email, merchantId, role: 'owner' });
  return { merchantId, userId: user.id };
}

// --- the MED side: the PSP opens, the gateway syncs, the merchant defends ----------------------

/**
 * The gateway's API in this process, its workflows on the scenario's task queue through the plain
 * client: the /med routes as a merchant's dashboard calls them (a signed access token per owner).
 */
async function apiOn(taskQueue: string) {
  const encryptionKey = crypto.randomBytes(32).toString('hex');
  const callbackSecret = crypto.randomBytes(24).toString('hex');
  const pixWebhookSecret = crypto.randomBytes(32).toString('hex');
  recordIssuedSecrets('API keys (credentials encryption key, callback secret, API Pix webhook secret)', [
    encryptionKey,
    callbackSecret,
    pixWebhookSecret,
  ]);
  const app = createApp(
    stackApiDeps(
      {
        sequelize: wf.sequelize,
        temporal: client,
        taskQueue,
        encryptionKey,
        callbackSecret,
        smtpUrl: mail.url,
        sandboxUrl,
        pixWebhookSecret,
      },
      // Longer than the PSP's window, so the deadline is the PSP's own (read on the sandbox's clock).
      { med: { analysisDeadlineMs: 30 * DAY, reminderBeforeMs: DAY } },
    ),
  );
  const server = http.createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    /** A dashboard client signed in as this user. */
    async as(userId: string): Promise<AppClient> {
      const c = new AppClient(url);
      c.accessToken = await accessTokenMinter(encryptionKey, userId)();
      recordIssuedSecrets('dashboard access token', [c.accessToken]);
      return c;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

async function pspInfraction(providerId: string) {
  const all = (await sandboxCall('GET', '/sandbox/infractions')).body.infractions as any[];
  return all.find((i) => i.id === providerId);
}

async function transfersReturning(endToEndId: string) {
  return ((await sandboxCall('GET', '/sandbox/transfers')).body.transfers as any[]).filter(
    (t) => t.returnOf === endToEndId,
  );
}

async function infractionRow(id: string) {
  const [row] = await wf.sequelize.query<any>(`SELECT * FROM med_infractions WHERE id = :id`, {
    replacements: { id },
    type: QueryTypes.SELECT,
  });
  return row;
}

async function movementCount(prefix: string): Promise<number> {
  const [row] = await wf.sequelize.query<{ n: string }>(
    `SELECT count(*) AS n FROM ledger_transactions WHERE movement_key LIKE :prefix`,
    { replacements: { prefix: `${prefix}%` }, type: QueryTypes.SELECT },
  );
  return Number(row.n);
}

/** When each alertMedDeadline activity was scheduled, on the server's (skipped) clock, from the workflow's history. */
async function alertTimes(infractionId: string): Promise<number[]> {
  const history = await client.workflow.getHandle(medInfractionWorkflowId(infractionId)).fetchHistory();
  return (history.events ?? [])
    .filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'alertMedDeadline')
    .map((e) => Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6));
}

interface Scenario {
  taskQueue: string;
  /** The owner's dashboard client of the API. */
  dashboard: AppClient;
  owner: { merchantId: string; userId: string };
  partner: { merchantId: string; userId: string };
  infractionId: string;
  providerId: string;
  endToEndId: string;
  deadlineMs: number;
  trace: Trace;
}

/**
 * The shared part: split charge 10 000 (fee 100; 4 000 to the partner, 5 900 to the owner), the
 * owner withdraws 5 000, the partner pays 3 000 out; the claim of 10 000; the later receipts; the
 * alerts up to 5 h before the deadline. Each outcome then runs with what this answers.
 */
async function upToTheDefence(
  title: string,
  taskQueue: string,
  api: Awaited<ReturnType<typeof apiOn>>,
): Promise<Scenario> {
  const owner = await merchantWithOwner('Loja A (dona da cobrança)');
  const partner = await merchantWithOwner('Loja B (parceira do split)');
  const A = owner.merchantId;
  const B = partner.merchantId;
  const dashboard = await api.as(owner.userId);
  const trace = new Trace(title, [
    { label: 'A', id: A, dashboard },
    { label: 'B', id: B, dashboard: await api.as(partner.userId) },
  ]);
  await trace.start();
  const zero = { available: 0, reserved: 0, blocked: 0, owed: 0 };

  const charge = await paidCharge(taskQueue, A, 10_000, [{ merchantId: B, amountCents: 4_000 }]);
  await trace.step('split charge 10 000 paid (fee 100, 4 000 to B)', {
    A: { ...zero, available: 5_900 },
    B: { ...zero, available: 4_000 },
  });
  await withdrawn(taskQueue, A, 5_000);
  await trace.step('A withdraws 5 000', { A: { ...zero, available: 900 }, B: { ...zero, available: 4_000 } });
  await paidOut(taskQueue, B, [2_000, 1_000]);
  await trace.step('B pays out 3 000 (batch of 2)', {
    A: { ...zero, available: 900 },
    B: { ...zero, available: 1_000 },
  });

  // The payer's bank claims it all; the PSP's deadline is 7 days on the (followed) server clock.
  await followServerClock();
  const opened = await sandboxCall('POST', `/sandbox/charges/${charge.providerChargeId}/infractions`, {
    amountCents: 10_000,
    deadlineSeconds: PSP_DEADLINE_SECONDS,
  });
  expect(opened.status).toBe(201);
  const res = await dashboard.call('POST', '/med/infractions/sync', { body: { merchantId: A } });
  expect(res.status).toBe(200);
  const synced = res.body as { data: { id: string }[] };
  expect(synced.data).toEqual([
    expect.objectContaining({ merchantId: A, chargeId: charge.chargeId, disputedAmountCents: 10_000, status: 'OPEN' }),
  ]);
  const infractionId = synced.data[0].id;
  await waitFor(async () => (await infractionRow(infractionId)).blocked_at !== null, 'claim blocked');
  const deadlineMs = Date.parse(opened.body.analysisDeadline);
  expect(new Date((await infractionRow(infractionId)).deadline_at).getTime()).toBe(deadlineMs);

  // Blocked at once what each has; the rest owed, in proportion to what each received (owner 5 900,
  // partner 4 000, the platform's fee 100 is its own).
  await trace.step('claim 10 000 synced: blocked at once, the rest owed', {
    A: { ...zero, blocked: 900, owed: -5_000 },
    B: { ...zero, blocked: 1_000, owed: -3_000 },
  });
  expect((await dashboard.call('GET', `/med/infractions/${infractionId}`)).body).toMatchObject({
    status: 'OPEN',
    parties: [
      expect.objectContaining({ merchantId: A, heldCents: 900, owedCents: 5_000 }),
      expect.objectContaining({ merchantId: B, heldCents: 1_000, owedCents: 3_000 }),
    ],
  });

  // Later receipts go to the debt first: into blocked, not available.
  await paidCharge(taskQueue, A, 2_000);
  await trace.step('A receives 2 000 (net 1 980): recovered into blocked', {
    A: { ...zero, blocked: 2_880, owed: -3_020 },
    B: { ...zero, blocked: 1_000, owed: -3_000 },
  });
  await paidCharge(taskQueue, B, 1_000);
  await trace.step('B receives 1 000 (net 990): recovered into blocked', {
    A: { ...zero, blocked: 2_880, owed: -3_020 },
    B: { ...zero, blocked: 1_990, owed: -2_010 },
  });
  expect(await movementCount(`med-recover:${infractionId}:${A}:`)).toBe(1);
  expect(await movementCount(`med-recover:${infractionId}:${B}:`)).toBe(1);

  // Days pass: skip to 5 h before the deadline; the 48, 24 and 6 h alerts go at their times.
  await wf.env.sleep(deadlineMs - 5 * HOUR - (await wf.env.currentTimeMs()));
  await followServerClock();
  const alerts = await waitFor(async () => {
    const rows = await wf.sequelize.query<{ hours_left: number }>(
      `SELECT hours_left FROM med_infraction_alerts WHERE infraction_id = :id ORDER BY hours_left DESC`,
      { replacements: { id: infractionId }, type: QueryTypes.SELECT },
    );
    return rows.length === 3 ? rows : undefined;
  }, 'the three alerts recorded');
  expect(alerts.map((a) => Number(a.hours_left))).toEqual([48, 24, 6]);
  const times = await alertTimes(infractionId);
  expect(times).toHaveLength(3);
  for (const [nth, hours] of [48, 24, 6].entries())
    expect(Math.abs(times[nth] - (deadlineMs - hours * HOUR))).toBeLessThan(60_000);
  const events = await wf.sequelize.query<{ payload: any }>(
    `SELECT payload FROM outbox_events WHERE aggregate_id = :id AND type = 'med.infraction.deadline_approaching'
     ORDER BY (payload->>'hoursLeft')::int DESC`,
    { replacements: { id: infractionId }, type: QueryTypes.SELECT },
  );
  expect(events.map((e) => e.payload)).toEqual(
    [48, 24, 6].map((hoursLeft) => expect.objectContaining({ id: infractionId, hoursLeft })),
  );
  // And an e-mail to the owner with each.
  for (const hours of [48, 24, 6])
    await mail.waitFor((m) => m.subject === `MED: ${hours} h left to answer the Pix infraction ${infractionId}`);
  await trace.step('7 days less 5 h skipped: alerts at 48/24/6 h sent', {
    A: { ...zero, blocked: 2_880, owed: -3_020 },
    B: { ...zero, blocked: 1_990, owed: -2_010 },
  });

  return {
    taskQueue,
    dashboard,
    owner,
    partner,
    infractionId,
    providerId: opened.body.id,
    endToEndId: charge.endToEndId,
    deadlineMs,
    trace,
  };
}

// --- the outcomes: the default ACCEPT at the deadline, or the PSP's decision on a defended case --

const DEFENCE = 'mercadoria entregue em 20/11, rastreio BR123456789; o pagador confirmou o recebimento';

const outcomes = {
  /** The claim upheld: today the default ACCEPT just before the deadline (no defence stored). */
  async upheld(s: Scenario): Promise<void> {
    // Skip past the deadline: the answer for the merchant goes 15 min before it, then the devolução.
    await wf.env.sleep(s.deadlineMs + HOUR - (await wf.env.currentTimeMs()));
    const result = await client.workflow.getHandle(medInfractionWorkflowId(s.infractionId)).result();
    expect(result).toEqual({ infractionId: s.infractionId, status: 'ACCEPTED' });
    await followServerClock();
    expect(await pspInfraction(s.providerId)).toMatchObject({
      status: 'ACCEPTED',
      decision: 'ACCEPT',
      justification: 'no analysis before the deadline',
    });
  },
  /** The merchant defends: the PSP gets the text, the case is IN_DEFENCE and everything stays held. */
  async defended(s: Scenario): Promise<void> {
    const res = await s.dashboard.call('POST', `/med/infractions/${s.infractionId}/defence`, {
      body: { text: DEFENCE, evidenceKeys: [] },
    });
    expect(res.status).toBe(200);
    const sent = res.body;
    expect(sent.defence).toMatchObject({ text: DEFENCE, evidence: [] });
    expect(sent.infraction).toMatchObject({ status: 'IN_DEFENCE', decision: 'REJECT', justification: DEFENCE });
    expect(await pspInfraction(s.providerId)).toMatchObject({
      status: 'IN_DEFENCE',
      decision: 'REJECT',
      justification: DEFENCE,
    });
    await s.trace.step('defence sent (REJECT): IN_DEFENCE at the PSP, holds and debts kept', {
      A: { available: 0, reserved: 0, blocked: 2_880, owed: -3_020 },
      B: { available: 0, reserved: 0, blocked: 1_990, owed: -2_010 },
    });
  },
  /** The PSP decides the defended case; the next sync reads it and the case's workflow follows it. */
  async pspDecides(s: Scenario, outcome: 'UPHELD' | 'DISMISSED'): Promise<void> {
    await followServerClock();
    expect((await sandboxCall('POST', `/sandbox/infractions/${s.providerId}/decision`, { outcome })).status).toBe(200);
    const synced = await s.dashboard.call('POST', '/med/infractions/sync', {
      body: { merchantId: s.owner.merchantId },
    });
    expect(synced.status).toBe(200);
    const result = await client.workflow.getHandle(medInfractionWorkflowId(s.infractionId)).result();
    expect(result).toEqual({ infractionId: s.infractionId, status: outcome === 'UPHELD' ? 'ACCEPTED' : 'REJECTED' });
  },
  /** The defence wins: the merchant defends, the PSP dismisses the claim. */
  async defenceWins(s: Scenario): Promise<void> {
    await outcomes.defended(s);
    await outcomes.pspDecides(s, 'DISMISSED');
  },
};

/** The gateway's real activities, with the sandbox as the PSP and the mail sink as the SMTP server. */
function gatewayActivities() {
  return wf.activities(provider, { secretsKey: crypto.randomBytes(32), smtpUrl: mail.url });
}

/** One scenario: a worker of the gateway's workflows and the API on its task queue, the shared part, then `outcome`. */
async function scenario(title: string, outcome: (s: Scenario) => Promise<void>): Promise<void> {
  await wf.withWorker(
    gatewayActivities(),
    async (taskQueue) => {
      const api = await apiOn(taskQueue);
      try {
        const s = await upToTheDefence(title, taskQueue, api);
        await outcome(s);
        await finish(s);
      } finally {
        await api.close();
      }
    },
    { prefix: 'medtrace' },
  );
}

async function finish(s: Scenario): Promise<void> {
  const table = await s.trace.markdown();
  traces.push(table);
  log.info({ infractionId: s.infractionId }, `MED trace\n${table}`);
}

it('claim upheld: the devolução of 10 000 is paid once, from what A and B held and recovered, the platform advancing the rest; the debts stay', async () => {
  await scenario('claim upheld (default ACCEPT at the deadline)', async (s) => {
    const A = s.owner.merchantId;
    const B = s.partner.merchantId;
    await outcomes.upheld(s);
    const row = await infractionRow(s.infractionId);
    expect(row).toMatchObject({ status: 'ACCEPTED', decided_by: 'DEFAULT', refund_status: 'SUCCEEDED' });
    // Paid once, in full, to the payer: the sandbox's devolução of this payment.
    expect(await transfersReturning(s.endToEndId)).toEqual([
      expect.objectContaining({ reference: row.refund_id, amountCents: 10_000, status: 'COMPLETED' }),
    ]);
    const [refund] = await wf.sequelize.query<{ shares: any }>(`SELECT shares FROM refunds WHERE id = :id`, {
      replacements: { id: row.refund_id },
      type: QueryTypes.SELECT,
    });
    expect(refund.shares).toEqual({
      ownerCents: 2_880,
      feeCents: 100,
      splits: [{ merchantId: B, amountCents: 1_990 }],
      advancedCents: 5_030,
    });
    expect(await movementCount(`refund-complete:${row.refund_id}`)).toBe(1);
    await s.trace.step('deadline: default ACCEPT, devolução 10 000 (held 4 870 + fee 100 + advanced 5 030)', {
      A: { available: 0, reserved: 0, blocked: 0, owed: -3_020 },
      B: { available: 0, reserved: 0, blocked: 0, owed: -2_010 },
    });
    // After the devolução a receipt pays the platform back, once: available → owed.
    await paidCharge(s.taskQueue, A, 1_000);
    await s.trace.step('A receives 1 000 (net 990): repays the platform', {
      A: { available: 0, reserved: 0, blocked: 0, owed: -2_030 },
      B: { available: 0, reserved: 0, blocked: 0, owed: -2_010 },
    });
  });
});

it('defence wins: the defence reaches the PSP, the case is held IN_DEFENCE; dismissed by the PSP, every hold is released and the debts cancelled, one keyed transaction per party', async () => {
  await scenario('defence wins (REJECT, dismissed by the PSP)', async (s) => {
    const A = s.owner.merchantId;
    const B = s.partner.merchantId;
    await outcomes.defenceWins(s);
    expect(await transfersReturning(s.endToEndId)).toEqual([]);
    expect(await movementCount(`med-unblock:${s.infractionId}`)).toBe(2);
    expect(await movementCount(`med-debt-cancel:${s.infractionId}:${A}`)).toBe(1);
    expect(await movementCount(`med-debt-cancel:${s.infractionId}:${B}`)).toBe(1);
    const read = await s.dashboard.call('GET', `/med/infractions/${s.infractionId}/timeline`);
    expect(read.status).toBe(200);
    const timeline = read.body as TimelineView;
    // Every step, each once (the alerts once per lead). Not their order: OPENED is the PSP's time,
    // on the sandbox's clock that follows the skipped days, the others the database's wall clock.
    expect(timeline.steps.map((x) => x.step).sort()).toEqual(
      [
        'OPENED',
        'BLOCKED',
        'ALERT_SENT',
        'ALERT_SENT',
        'ALERT_SENT',
        'DEFENCE_SUBMITTED',
        'DECIDED',
        'IN_DEFENCE',
        'PSP_DECIDED',
      ].sort(),
    );
    expect(timeline.steps.find((x) => x.step === 'PSP_DECIDED')).toMatchObject({ outcome: 'DISMISSED' });
    expect(timeline.steps.filter((x) => x.step === 'ALERT_SENT').map((x) => x.hoursLeft)).toEqual([48, 24, 6]);
    expect(timeline.steps.find((x) => x.step === 'DECIDED')).toMatchObject({
      decision: 'REJECT',
      decidedBy: s.owner.userId,
    });
    expect(timeline.defence).toMatchObject({ text: DEFENCE, submittedBy: s.owner.userId });
    await s.trace.step('the PSP dismisses the claim (the defence won): holds released, debts cancelled', {
      A: { available: 2_880, reserved: 0, blocked: 0, owed: 0 },
      B: { available: 1_990, reserved: 0, blocked: 0, owed: 0 },
    });
    // The case is over: a later receipt is the merchant's.
    await paidCharge(s.taskQueue, A, 1_000);
    await s.trace.step('A receives 1 000 (net 990): all available', {
      A: { available: 2_880 + 990, reserved: 0, blocked: 0, owed: 0 },
      B: { available: 1_990, reserved: 0, blocked: 0, owed: 0 },
    });
  });
});

it('defence lost: the PSP upholds the claim over the defence; the devolução of 10 000 is paid once as after an ACCEPT, the debts stay', async () => {
  await scenario('claim upheld by the PSP over the defence', async (s) => {
    await outcomes.defended(s);
    await outcomes.pspDecides(s, 'UPHELD');
    const row = await infractionRow(s.infractionId);
    expect(row).toMatchObject({ status: 'ACCEPTED', decision: 'REJECT', psp_outcome: 'UPHELD' });
    await waitFor(async () => (await infractionRow(s.infractionId)).refund_status === 'SUCCEEDED', 'devolução');
    expect(await transfersReturning(s.endToEndId)).toEqual([
      expect.objectContaining({ reference: row.refund_id, amountCents: 10_000, status: 'COMPLETED' }),
    ]);
    const [refund] = await wf.sequelize.query<{ shares: any }>(`SELECT shares FROM refunds WHERE id = :id`, {
      replacements: { id: row.refund_id },
      type: QueryTypes.SELECT,
    });
    expect(refund.shares).toMatchObject({ ownerCents: 2_880, feeCents: 100, advancedCents: 5_030 });
    expect(await movementCount(`refund-complete:${row.refund_id}`)).toBe(1);
    await s.trace.step('the PSP upholds the claim: devolução 10 000 (held 4 870 + fee 100 + advanced 5 030)', {
      A: { available: 0, reserved: 0, blocked: 0, owed: -3_020 },
      B: { available: 0, reserved: 0, blocked: 0, owed: -2_010 },
    });
  });
});
