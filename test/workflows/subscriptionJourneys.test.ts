/**
 * Issue 39: journeys 1 and 2 against the sandbox, through the application API and the whole
 * stack on this file's time-skipping server (see subscriptionYear.test.ts for the set-up and its
 * clock). Journey 1: the authorisation request (solicrec) to the payer's account, accepted, then
 * the merchant cancels (the rec CANCELADA at the PSP, a second cancel refused). Journey 2: the QR
 * that only authorises: AUTHORISED without access until the first cycle's cobr, issued in its
 * window before the first due date, is paid; and a refusal (REFUSED, no access). Every API Pix
 * request is audited against the BCB document by the stack.
 */
import crypto from 'node:crypto';
import { Client } from '@temporalio/client';
import { accounts } from '../../core/ledger/accounts';
import { cycleDue } from '../../core/subscriptions/calendar';
import { issueWindow } from '../../core/subscriptions/issueWindow';
import { waitFor } from '../support/env';
import { insertCourse, insertPrice } from '../support/checkouts';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { signedInMerchant, type SignedInMerchant } from '../support/signedIn';
import { useWorkflowEnv } from '../support/workflowEnv';

jest.setTimeout(180_000);

// Declared before useWorkflowEnv's own hooks, so it runs first: the stack's worker lets go of the
// server's connection before the server is torn down (afterAll hooks run in declaration order).
afterAll(async () => {
  await stack?.stop();
});
const wf = useWorkflowEnv();
let stack: IntegrationStack;
let offsetMs = 0;
let owner: SignedInMerchant;
let priceId: string;

beforeAll(async () => {
  const client = new Client({ connection: wf.env.connection, namespace: wf.env.namespace });
  stack = await startIntegrationStack({
    temporal: { client, workerConnection: wf.connection },
    sandboxNow: () => new Date(Date.now() + offsetMs),
  });
  owner = await signedInMerchant(stack, { emailPrefix: 'jornadas', name: 'Escola Jornadas' });
  const courseId = await insertCourse(stack.sequelize, owner.merchantId, { title: 'Violão do zero' });
  priceId = await insertPrice(stack.sequelize, owner.merchantId, courseId, {
    type: 'SUBSCRIPTION',
    amountCents: 2_990,
    interval: 'MONTHLY',
    retryPolicy: 'NAO_PERMITE',
  });
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

async function skipTo(targetMs: number): Promise<void> {
  const now = await wf.env.currentTimeMs();
  if (targetMs <= now) return;
  offsetMs = targetMs - Date.now();
  await wf.env.sleep(targetMs - now);
  offsetMs = (await wf.env.currentTimeMs()) - Date.now();
}

async function sandbox(route: string, body?: unknown) {
  const res = await fetch(`${stack.sandboxUrl}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect({ route, status: res.status }).toEqual({ route, status: 200 });
  return (await res.json()) as any;
}

async function row(id: string) {
  const [rows] = await stack.sequelize.query(
    `SELECT s.status, s.id_rec, e.status AS enrolment FROM subscriptions s
       LEFT JOIN enrolments e ON e.subscription_id = s.id WHERE s.id = :id`,
    { replacements: { id } },
  );
  return (rows as { status: string; id_rec: string; enrolment: string | null }[])[0];
}

async function until(id: string, status: string) {
  return waitFor(async () => ((await row(id))?.status === status ? row(id) : undefined), `subscription ${status}`);
}

function create(body: Record<string, unknown>) {
  return owner.client.call('POST', '/subscriptions', {
    body: { priceId, payer: { name: 'Bruno Lima', document: '52998224725' }, ...body },
    headers: { 'idempotency-key': `sub-${crypto.randomUUID()}` },
  });
}

test('journey 1: the request reaches the payer’s account, is accepted, and the merchant cancels', async () => {
  const created = await create({
    journey: 'JOURNEY_1',
    payerAccount: { ispb: '60701190', branch: '0001', account: '123456' },
  });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ status: 'AWAITING_AUTHORISATION', journey: 'JOURNEY_1', qrCopyPaste: null });
  expect(created.body.authorizationRequestId).toMatch(/^SC/);
  const { id } = created.body;
  const idRec = (await row(id)).id_rec;

  await sandbox(`/sandbox/pix-automatico/recs/${idRec}/approve`, { jornada: 'JORNADA_1' });
  expect(await until(id, 'AUTHORISED')).toMatchObject({ enrolment: 'PENDING' });

  const cancelled = await owner.client.call('POST', `/subscriptions/${id}/cancel`, {
    headers: { 'idempotency-key': `cancel-${id}` },
  });
  expect(cancelled.status).toBe(200);
  expect(cancelled.body).toMatchObject({ status: 'CANCELLED', cancelledBy: 'MERCHANT', hasAccess: false });
  expect(await row(id)).toMatchObject({ status: 'CANCELLED', enrolment: 'CANCELLED' });
  expect(stack.sandbox.state.pixAutomatico.recs.get(idRec)?.status).toBe('CANCELADA');

  const again = await owner.client.call('POST', `/subscriptions/${id}/cancel`, {
    headers: { 'idempotency-key': `cancel-again-${id}` },
  });
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe('SUBSCRIPTION_ALREADY_ENDED');
});

test('journey 2: the QR authorises; access starts when the first cycle, issued in its window, is paid', async () => {
  const created = await create({ journey: 'JOURNEY_2' });
  expect(created.status).toBe(201);
  const sub = created.body;
  expect(sub.qrCopyPaste).toMatch(/^000201/);
  expect(sub.firstChargeId).toBeNull();
  const page = await fetch(sub.url);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain(sub.qrCopyPaste);

  const idRec = (await row(sub.id)).id_rec;
  await sandbox(`/sandbox/pix-automatico/recs/${idRec}/approve`, { jornada: 'JORNADA_2' });
  expect(await until(sub.id, 'AUTHORISED')).toMatchObject({ enrolment: 'PENDING' });

  const due = cycleDue({ dataInicial: sub.firstDueDate, periodicidade: 'MENSAL' }, 1);
  await skipTo(Date.parse(issueWindow(due.settlementDate).issueAt) + 60_000);
  const txid = await waitFor(async () => {
    const [rows] = await stack.sequelize.query(
      `SELECT txid FROM subscription_cycles WHERE subscription_id = :id AND cycle = 1 AND status = 'ISSUED'`,
      { replacements: { id: sub.id } },
    );
    return (rows as { txid: string }[])[0]?.txid;
  }, 'cycle 1 issued');
  await skipTo(Date.parse(`${due.settlementDate}T09:00:00-03:00`));
  await sandbox(`/sandbox/pix-automatico/cobrs/${txid}/pay`);
  expect(await until(sub.id, 'ACTIVE')).toMatchObject({ enrolment: 'ACTIVE' });
  expect(await balance(stack.sequelize, accounts.merchantAvailable(owner.merchantId))).toBeGreaterThan(0);
});

test('journey 2 refused by the payer: REFUSED, never any access', async () => {
  const created = await create({ journey: 'JOURNEY_2' });
  expect(created.status).toBe(201);
  const idRec = (await row(created.body.id)).id_rec;
  await sandbox(`/sandbox/pix-automatico/recs/${idRec}/refuse`);
  expect(await until(created.body.id, 'REFUSED')).toMatchObject({ enrolment: 'CANCELLED' });
  const read = await owner.client.call('GET', `/subscriptions/${created.body.id}`);
  expect(read.body).toMatchObject({ status: 'REFUSED', hasAccess: false, qrCopyPaste: null });
});
