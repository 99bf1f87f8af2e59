/**
 * Issue 39's "done when", end to end on the Java time-skipping server: a SUBSCRIPTION course
 * bought through the hosted page by journey 3 (the composite QR: its cob pays cycle 1 and
 * authorises the recurrence), then a year of monthly cycles issued and paid in skipped time, one of
 * them rejected once and healed by a retry, then a thirteenth that fails for good and a payer's
 * cancellation. After every cycle: the ledger invariant, the merchant's available balance (each
 * paid cycle credited once, less its fee), the cycle's charge PAID with its receipt, and the
 * subscription's and the enrolment's states (access follows payment).
 *
 * Real: the whole integration stack (API, worker with the gateway's workflows and activities, its
 * own database, the bundled sandbox as the API Pix PSP over mutual TLS, every request it receives
 * audited against the BCB document) on this file's time-skipping server. The sandbox's clock leads
 * the server's to each skip's target before the skip (`skipTo`), so what a timer makes the gateway
 * send is judged on the day it is sent. The payer's side is the sandbox's Pix Automático controls;
 * every notice reaches the API's webhook routes (webhookrec, webhookcobr, /pix) as the PSP's would.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { accounts } from '../../core/ledger/accounts';
import { cycleDue, type RecCalendar } from '../../core/subscriptions/calendar';
import { issueWindow } from '../../core/subscriptions/issueWindow';
import { waitFor } from '../support/env';
import { runTool } from '../support/externalTools';
import { insertCourse, insertPrice } from '../support/checkouts';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { signedInMerchant } from '../support/signedIn';
import type { AppClient } from '../support/appClient';
import { useWorkflowEnv } from '../support/workflowEnv';

jest.setTimeout(300_000);

const PRICE_CENTS = 4_990;
// Declared before useWorkflowEnv's own hooks, so it runs first: the stack's worker lets go of the
// server's connection before the server is torn down (afterAll hooks run in declaration order).
afterAll(async () => {
  await stack?.stop();
});
const wf = useWorkflowEnv();

let stack: IntegrationStack;
/** The sandbox's clock minus the wall clock. */
let offsetMs = 0;

beforeAll(async () => {
  const client = new Client({ connection: wf.env.connection, namespace: wf.env.namespace });
  stack = await startIntegrationStack({
    temporal: { client, workerConnection: wf.connection },
    sandboxNow: () => new Date(Date.now() + offsetMs),
  });
});

/** The sandbox jumps to `targetMs` first, then the server skips there (its timers fire on the way). */
async function skipTo(targetMs: number): Promise<void> {
  const now = await wf.env.currentTimeMs();
  if (targetMs <= now) return;
  offsetMs = targetMs - Date.now();
  await wf.env.sleep(targetMs - now);
  offsetMs = (await wf.env.currentTimeMs()) - Date.now();
}

async function sandbox(method: string, route: string, body?: unknown) {
  const res = await fetch(`${stack.sandboxUrl}${route}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as any;
  expect({ route, status: res.status, body: json }).toMatchObject({ route, status: 200 });
  return json;
}

async function one<T>(sql: string, replacements: Record<string, unknown>): Promise<T | undefined> {
  const [rows] = await stack.sequelize.query(sql, { replacements });
  return (rows as T[])[0];
}

const subscriptionRow = (id: string) =>
  one<{ status: string; id_rec: string | null }>('SELECT status, id_rec FROM subscriptions WHERE id = :id', { id });
const enrolmentStatus = async (id: string) =>
  (await one<{ status: string }>('SELECT status FROM enrolments WHERE subscription_id = :id', { id }))?.status;
const cycleRow = (id: string, cycle: number) =>
  one<{ status: string; txid: string | null; charge_id: string; retries: number }>(
    'SELECT status, txid, charge_id, retries FROM subscription_cycles WHERE subscription_id = :id AND cycle = :cycle',
    { id, cycle },
  );

async function untilSubscription(id: string, status: string): Promise<void> {
  await waitFor(async () => (await subscriptionRow(id))?.status === status, `subscription ${status}`, 60_000);
}

async function untilCycle(id: string, cycle: number, status: string) {
  return waitFor(
    async () => {
      const row = await cycleRow(id, cycle);
      return row?.status === status ? row : undefined;
    },
    `cycle ${cycle} ${status}`,
    60_000,
  );
}

/** What the merchant has available, and the fee of each paid charge: every paid cycle credited once. */
async function assertMoney(merchantId: string, paidCycles: number): Promise<void> {
  await assertLedgerInvariant(stack.sequelize);
  const paid = await one<{ n: string; net: string }>(
    `SELECT count(*) AS n, coalesce(sum(amount_cents - fee_cents), 0) AS net FROM charges
      WHERE merchant_id = :merchantId AND status = 'PAID'`,
    { merchantId },
  );
  expect(Number(paid!.n)).toBe(paidCycles);
  expect(await balance(stack.sequelize, accounts.merchantAvailable(merchantId))).toBe(Number(paid!.net));
}

async function receiptText(owner: AppClient, chargeId: string): Promise<string> {
  const res = await fetch(`${stack.apiUrl}/charges/${chargeId}/receipt`, {
    headers: { authorization: `Bearer ${owner.accessToken}` },
  });
  expect(res.status).toBe(200);
  const file = path.join(os.tmpdir(), `receipt-${chargeId}.pdf`);
  fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  try {
    return execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/** The instant the workflow issues cycle `cycle` (09:00 in Brasília, 9 days before its settlement date). */
function issueInstant(calendar: RecCalendar, cycle: number): number {
  return Date.parse(issueWindow(cycleDue(calendar, cycle).settlementDate).issueAt);
}

/** Skips to the cycle's issue, waits for its cobr, then to its settlement day. */
async function issued(subscriptionId: string, calendar: RecCalendar, cycle: number) {
  await skipTo(issueInstant(calendar, cycle) + 60_000);
  const row = await untilCycle(subscriptionId, cycle, 'ISSUED');
  expect(row.txid).toBeTruthy();
  const settlement = Date.parse(`${cycleDue(calendar, cycle).settlementDate}T09:00:00-03:00`);
  await skipTo(settlement);
  return row as { txid: string; charge_id: string };
}

test('a SUBSCRIPTION course bought on the hosted page by journey 3: a year of cycles paid, a retry, a failed cycle, the payer cancels', async () => {
  const owner = await signedInMerchant(stack, { emailPrefix: 'assinaturas', name: 'Escola Anual' });
  const courseId = await insertCourse(stack.sequelize, owner.merchantId, { title: 'Inglês para a vida' });
  const priceId = await insertPrice(stack.sequelize, owner.merchantId, courseId, {
    type: 'SUBSCRIPTION',
    amountCents: PRICE_CENTS,
    interval: 'MONTHLY',
    retryPolicy: 'PERMITE_3R_7D',
  });

  // The purchase: the application API answers the subscription and its hosted page.
  const created = await owner.client.call('POST', '/subscriptions', {
    body: { priceId, journey: 'JOURNEY_3', payer: { name: 'Ana Souza', document: '52998224725' } },
    headers: { 'idempotency-key': `sub-${Date.now()}` },
  });
  expect(created.status).toBe(201);
  const sub = created.body;
  expect(sub).toMatchObject({ status: 'AWAITING_AUTHORISATION', journey: 'JOURNEY_3', amountCents: PRICE_CENTS });
  expect(sub.qrCopyPaste).toMatch(/^000201/);

  // The hosted page: the terms in Portuguese and the composite QR.
  const page = await fetch(sub.url);
  expect(page.status).toBe(200);
  const html = await page.text();
  expect(html).toContain('Inglês para a vida');
  expect(html).toMatch(/mensal/i);
  expect(html).toContain('49,90');
  expect(html).toContain(sub.qrCopyPaste);
  // The page's QR image holds exactly the composite code, read back by a decoder we did not write.
  const qr = await fetch(`${sub.url}/qr.png`);
  expect(qr.status).toBe(200);
  const qrFile = path.join(os.tmpdir(), `subscription-qr-${sub.id}.png`);
  fs.writeFileSync(qrFile, Buffer.from(await qr.arrayBuffer()));
  try {
    expect((await runTool('zbarimg', ['--quiet', '--raw', qrFile])).trim()).toBe(sub.qrCopyPaste);
  } finally {
    fs.rmSync(qrFile, { force: true });
  }

  const idRec = (await subscriptionRow(sub.id))!.id_rec!;
  expect(idRec).toMatch(/^R[RN]/);
  // The payer pays the composite QR: the cob (cycle 1) and the authorisation in one go.
  await sandbox('POST', `/sandbox/pix-automatico/recs/${idRec}/pay-composite`);
  // The workflow learns the rec is approved from webhookrec, and reads its first charge (settled by
  // the charge's own lifecycle from the /pix notice) again a minute later if it was not yet paid: a
  // timer, so minutes are skipped until it is ACTIVE (however late the notices arrive on a busy host).
  await waitFor(
    async () => {
      if ((await subscriptionRow(sub.id))?.status === 'ACTIVE') return true;
      await skipTo((await wf.env.currentTimeMs()) + 60_000);
      return false;
    },
    'subscription ACTIVE (skipping a minute at a time)',
    120_000,
  );
  expect(await enrolmentStatus(sub.id)).toBe('ACTIVE');
  const first = await untilCycle(sub.id, 1, 'PAID');
  expect(first.charge_id).toBe(sub.firstChargeId);
  await assertMoney(owner.merchantId, 1);

  const calendar: RecCalendar = { dataInicial: sub.firstDueDate, periodicidade: 'MENSAL' };
  for (let cycle = 2; cycle <= 12; cycle++) {
    const { txid, charge_id } = await issued(sub.id, calendar, cycle);
    if (cycle === 4) {
      // Rejected once (not a code that ends the cobr): past due, the student keeps studying, a retry is asked.
      await sandbox('POST', `/sandbox/pix-automatico/cobrs/${txid}/reject`, { codigo: 'AM02' });
      await untilCycle(sub.id, cycle, 'RETRYING');
      await untilSubscription(sub.id, 'PAST_DUE');
      expect(await enrolmentStatus(sub.id)).toBe('PAST_DUE');
      await skipTo((await wf.env.currentTimeMs()) + 24 * 3_600_000);
    }
    await sandbox('POST', `/sandbox/pix-automatico/cobrs/${txid}/pay`);
    await untilCycle(sub.id, cycle, 'PAID');
    await untilSubscription(sub.id, 'ACTIVE');
    expect(await enrolmentStatus(sub.id)).toBe('ACTIVE');
    await assertMoney(owner.merchantId, cycle);
    if (cycle === 12) expect(await receiptText(owner.client, charge_id)).toContain('49,90');
  }

  // Cycle 13 fails for good (AM09 ends the cobr): suspended, no access; then the payer cancels.
  const { txid } = await issued(sub.id, calendar, 13);
  await sandbox('POST', `/sandbox/pix-automatico/cobrs/${txid}/reject`, { codigo: 'AM09' });
  await untilCycle(sub.id, 13, 'FAILED');
  await untilSubscription(sub.id, 'SUSPENDED');
  expect(await enrolmentStatus(sub.id)).toBe('SUSPENDED');
  // The application API's enrolment says so, and no lesson can be completed until a cycle is paid.
  const enrolments = await owner.client.call('GET', `/enrolments?courseId=${courseId}`);
  expect(enrolments.body.data).toEqual([
    expect.objectContaining({ subscriptionId: sub.id, checkoutId: null, status: 'SUSPENDED' }),
  ]);
  const lesson = await owner.client.call(
    'POST',
    `/enrolments/${enrolments.body.data[0].id}/lessons/${crypto.randomUUID()}/complete`,
  );
  expect([lesson.status, lesson.body.error.code]).toEqual([409, 'ENROLMENT_WITHOUT_ACCESS']);
  await assertMoney(owner.merchantId, 12);

  await sandbox('POST', `/sandbox/pix-automatico/recs/${idRec}/cancel`);
  await untilSubscription(sub.id, 'CANCELLED');
  expect(await enrolmentStatus(sub.id)).toBe('CANCELLED');
  const read = await owner.client.call('GET', `/subscriptions/${sub.id}`);
  expect(read.body).toMatchObject({ status: 'CANCELLED', cancelledBy: 'PAYER', hasAccess: false });

  // Every API Pix request of the flow passed the BCB document (stop() fails the file otherwise).
  const audit = stack.pixApiRequests();
  expect(audit.violations).toEqual([]);
  const used = (method: string, route: RegExp) =>
    audit.calls.some((c) => c.startsWith(`${method} `) && route.test(c.slice(method.length + 1)));
  expect({
    locrec: used('POST', /\/locrec$/),
    rec: used('POST', /\/rec$/),
    readRec: used('GET', /\/rec\/[^/]+$/),
    cobr: used('PUT', /\/cobr\/[^/]+$/),
    readCobr: used('GET', /\/cobr\/[^/]+$/),
    retry: used('POST', /\/cobr\/[^/]+\/retentativa\/[0-9-]+$/),
  }).toEqual({ locrec: true, rec: true, readRec: true, cobr: true, readCobr: true, retry: true });
});
