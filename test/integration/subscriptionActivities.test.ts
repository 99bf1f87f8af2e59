/**
 * The subscription workflow's activities (activities/subscriptions), called directly against real
 * PostgreSQL and the bundled sandbox over HTTP (mutual TLS, every API Pix request audited against
 * the BCB document by the stack): the three journeys up to the recurrence, what readRecurrence says
 * after the payer approves, refuses or cancels, a cycle issued, rejected, retried, paid and
 * credited through the one Pix credit (ledger balanced, charge PAID, charge.paid), a failed cycle,
 * the merchant's cancel; the notification routes (/rec, /cobr) finding the subscription, and a Pix
 * on a cycle's txid left to the subscription (the charge machinery does not settle it).
 */
import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { loadConfig } from '../../config';
import { pspAccountsFrom } from '../../activities/provider/accounts/pspAccounts';
import { providerFrom, type ConfiguredProvider } from '../../activities/provider/providerFrom';
import { createSubscriptionActivities } from '../../activities/subscriptions';
import type { SubscriptionActivities } from '../../activities/subscriptions/contract';
import { addDays } from '../../core/boletos/dates';
import { subscriptionStore } from '../../db/subscriptions';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import type { SubscriptionLifecycleInput } from '../../workflows/subscriptions/types';
import { waitFor } from '../support/env';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant } from '../support/ledger';
import { testLogger } from '../support/testLogs';

jest.setTimeout(180_000);

let stack: IntegrationStack;
let psp: ConfiguredProvider;
let acts: SubscriptionActivities;
let merchant: MerchantCredentials;
let course: { courseId: string; priceId: string };
const AMOUNT = 4_990;
/** Today in Brasília (UTC−3, no daylight saving). */
const today = () => new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);

beforeAll(async () => {
  stack = await startIntegrationStack();
  const config = loadConfig({ ...process.env, NODE_ENV: 'test', ...stack.workerEnv });
  const logger = testLogger('subscription-activities');
  psp = providerFrom(config, logger);
  const accounts = pspAccountsFrom(
    { ...config, accountModelDefault: 'platform' },
    { platform: psp.provider, platformRecurrences: psp.pixApi.automatico, sequelize: stack.sequelize, logger },
  );
  acts = createSubscriptionActivities({
    sequelize: stack.sequelize,
    provider: psp.provider,
    accounts,
    providerCallbackUrl: `${stack.apiUrl}/webhooks/pix-gateway`,
    publicBaseUrl: stack.apiUrl,
    automaticoReceiver: config.pixApi.automaticoReceiver,
  });
  merchant = await stack.createMerchant({ name: 'Escola Recorrente' });
  course = await subscriptionCourse(merchant.merchantId);
});

afterAll(async () => {
  await psp?.close();
  await stack?.stop();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

async function subscriptionCourse(merchantId: string) {
  const courseId = crypto.randomUUID();
  const priceId = crypto.randomUUID();
  await stack.sequelize.query(
    `INSERT INTO courses (id, merchant_id, title, status, access_type, published_at)
     VALUES (:courseId, :merchantId, 'Curso de Violão Mensal', 'PUBLISHED', 'SUBSCRIPTION', now())`,
    { replacements: { courseId, merchantId } },
  );
  await stack.sequelize.query(
    `INSERT INTO course_prices (id, course_id, merchant_id, amount_cents, type, interval, retry_policy)
     VALUES (:priceId, :courseId, :merchantId, :amount, 'SUBSCRIPTION', 'MONTHLY', 'PERMITE_3R_7D')`,
    { replacements: { priceId, courseId, merchantId, amount: AMOUNT } },
  );
  return { courseId, priceId };
}

function input(journey: SubscriptionLifecycleInput['journey'], over: Partial<SubscriptionLifecycleInput> = {}) {
  return {
    subscriptionId: crypto.randomUUID(),
    merchantId: merchant.merchantId,
    courseId: course.courseId,
    priceId: course.priceId,
    courseTitle: 'Curso de Violão Mensal',
    journey,
    interval: 'MONTHLY',
    retryPolicy: 'PERMITE_3R_7D',
    amountCents: AMOUNT,
    firstDueDate: journey === 'JOURNEY_3' ? today() : addDays(today(), 10),
    lastDueDate: null,
    payer: { name: 'Maria da Silva', document: '12345678909' },
    payerAccount: journey === 'JOURNEY_1' ? { ispb: '12345678', branch: '0001', account: '123456' } : null,
    firstChargeId: null,
    externalId: null,
    metadata: {},
    returnUrl: null,
    idempotencyKey: null,
    ...over,
  } satisfies SubscriptionLifecycleInput;
}

async function control(path: string, body: unknown = {}) {
  const res = await fetch(`${stack.sandboxUrl}/sandbox/pix-automatico${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = await res.json();
  if (res.status !== 200) throw new Error(`sandbox ${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** A subscription recorded and its recurrence created at the PSP. */
async function started(journey: SubscriptionLifecycleInput['journey'], over: Partial<SubscriptionLifecycleInput> = {}) {
  const args = input(journey, over);
  await acts.recordSubscription(args);
  const prepared = await acts.createRecurrence({
    subscriptionId: args.subscriptionId,
    firstAttemptAt: new Date().toISOString(),
  });
  return { args, prepared };
}

async function events(subscriptionOrCharge: string) {
  return stack.sequelize.query<{ type: string; dedup_key: string; payload: Record<string, unknown> }>(
    `SELECT type, dedup_key, payload FROM outbox_events WHERE aggregate_id = :id ORDER BY created_at, type`,
    { replacements: { id: subscriptionOrCharge }, type: QueryTypes.SELECT },
  );
}

async function enrolmentStatus(subscriptionId: string) {
  const [row] = await stack.sequelize.query<{ status: string }>(
    'SELECT status FROM enrolments WHERE subscription_id = :subscriptionId',
    { replacements: { subscriptionId }, type: QueryTypes.SELECT },
  );
  return row?.status;
}

async function chargeRow(id: string) {
  const [row] = await stack.sequelize.query<{ status: string; subscription_id: string | null; pix_txid: string }>(
    'SELECT status, subscription_id, pix_txid FROM charges WHERE id = :id',
    { replacements: { id }, type: QueryTypes.SELECT },
  );
  return row;
}

/** A journey-2 subscription the payer authorised: AUTHORISED, ready for its cycles. */
async function authorised() {
  const { args, prepared } = await started('JOURNEY_2');
  await control(`/recs/${prepared.idRec}/approve`, { jornada: 'JORNADA_2' });
  expect((await acts.readRecurrence({ subscriptionId: args.subscriptionId })).status).toBe('APPROVED');
  await acts.recordSubscriptionState({
    subscriptionId: args.subscriptionId,
    state: 'AUTHORISED',
    event: 'subscription.authorised',
    cycle: null,
  });
  return { args, prepared };
}

describe('the recurrence', () => {
  it('journey 2: the row, its PENDING enrolment and subscription.created, then the rec with its QR (once)', async () => {
    const { args, prepared } = await started('JOURNEY_2');
    expect(prepared).toMatchObject({ subscriptionId: args.subscriptionId, state: 'AWAITING_AUTHORISATION' });
    expect(prepared.idRec).toMatch(/^R[RN][0-9]{8}[0-9]{8}[a-zA-Z0-9]{11}$/);
    expect(prepared.qrCopyPaste).toMatch(/^000201/);
    const row = await subscriptionStore.findSubscription(stack.sequelize, args.subscriptionId);
    expect(row).toMatchObject({
      idRec: prepared.idRec,
      qrCopyPaste: prepared.qrCopyPaste,
      status: 'AWAITING_AUTHORISATION',
    });
    expect(await enrolmentStatus(args.subscriptionId)).toBe('PENDING');
    // Every activity may run twice: nothing twice.
    await acts.recordSubscription(args);
    expect(
      await acts.createRecurrence({ subscriptionId: args.subscriptionId, firstAttemptAt: new Date().toISOString() }),
    ).toEqual(prepared);
    const created = await events(args.subscriptionId);
    expect(created.map((e) => e.type)).toEqual(['subscription.created']);
    expect(created[0].payload).toMatchObject({
      id: args.subscriptionId,
      status: 'AWAITING_AUTHORISATION',
      url: `${stack.apiUrl}/subscribe/${args.subscriptionId}`,
    });
    expect(await acts.readRecurrence({ subscriptionId: args.subscriptionId })).toEqual({
      status: 'CREATED',
      cancelledBy: null,
      endingCode: null,
      firstCharge: null,
    });
  });

  it('journey 1: the rec and its solicrec; the payer accepts → APPROVED', async () => {
    const { args, prepared } = await started('JOURNEY_1');
    expect(prepared.authorizationRequestId).toMatch(/^SC[0-9]{8}[0-9]{8}[a-zA-Z0-9]{11}$/);
    expect(prepared.qrCopyPaste).toBeNull();
    await control(`/recs/${prepared.idRec}/approve`, { jornada: 'JORNADA_1' });
    expect(await acts.readRecurrence({ subscriptionId: args.subscriptionId })).toMatchObject({ status: 'APPROVED' });
  });

  it('refused: REJECTED with the rules code; the enrolment CANCELLED with the subscription REFUSED', async () => {
    const { args, prepared } = await started('JOURNEY_2');
    await control(`/recs/${prepared.idRec}/refuse`);
    const reading = await acts.readRecurrence({ subscriptionId: args.subscriptionId });
    expect(reading).toMatchObject({ status: 'REJECTED', endingCode: 'AP13' });
    await acts.recordSubscriptionState({
      subscriptionId: args.subscriptionId,
      state: 'REFUSED',
      event: 'subscription.cancelled',
      cycle: null,
      endingCode: reading.endingCode,
    });
    expect(await enrolmentStatus(args.subscriptionId)).toBe('CANCELLED');
    const row = await subscriptionStore.findSubscription(stack.sequelize, args.subscriptionId);
    expect(row).toMatchObject({ status: 'REFUSED', endingCode: 'AP13' });
    expect(row?.endedAt).toBeInstanceOf(Date);
  });

  it('journey 3: the rec names the first charge; paying the composite QR pays the charge and approves the rec', async () => {
    const charge = await stack.api('POST', '/sellers/pix', {
      creds: merchant,
      body: { amountCents: AMOUNT, description: 'Curso de Violão Mensal' },
      headers: { 'x-idempotency-key': `key-${crypto.randomUUID()}` },
    });
    expect(charge.status).toBe(201);
    const firstChargeId = charge.body.id as string;
    const { args, prepared } = await started('JOURNEY_3', { firstChargeId });
    expect(prepared.qrCopyPaste).toMatch(/^000201/);
    expect(await acts.readRecurrence({ subscriptionId: args.subscriptionId })).toMatchObject({
      status: 'CREATED',
      firstCharge: 'PENDING',
    });
    await control(`/recs/${prepared.idRec}/pay-composite`);
    // The first charge is the charge lifecycle's: credited by it, as any Pix charge.
    await waitFor(async () => ((await chargeRow(firstChargeId))?.status === 'PAID' ? true : null), 'first charge PAID');
    expect(await acts.readRecurrence({ subscriptionId: args.subscriptionId })).toMatchObject({
      status: 'APPROVED',
      firstCharge: 'PAID',
    });
    await acts.recordFirstCycle({ subscriptionId: args.subscriptionId, dueDate: today(), settlementDate: today() });
    await acts.recordSubscriptionState({
      subscriptionId: args.subscriptionId,
      state: 'ACTIVE',
      event: 'subscription.cycle.paid',
      cycle: 1,
    });
    expect(await enrolmentStatus(args.subscriptionId)).toBe('ACTIVE');
    expect(await subscriptionStore.currentCycle(stack.sequelize, args.subscriptionId)).toMatchObject({
      cycle: 1,
      txid: null,
      chargeId: firstChargeId,
      status: 'PAID',
    });
  });

  it('cancelled by the payer: CANCELLED, by the PAYER', async () => {
    const { args, prepared } = await authorised();
    await control(`/recs/${prepared.idRec}/cancel`);
    expect(await acts.readRecurrence({ subscriptionId: args.subscriptionId })).toMatchObject({
      status: 'CANCELLED',
      cancelledBy: 'PAYER',
      endingCode: 'SLDB',
    });
  });
});

describe('a cycle', () => {
  it('issued, rejected, retried, paid: credited once through the Pix credit (ledger, charge PAID, charge.paid)', async () => {
    const { args } = await authorised();
    const due = args.firstDueDate;
    const issued = await acts.issueCycle({
      subscriptionId: args.subscriptionId,
      cycle: 1,
      dueDate: due,
      settlementDate: due,
    });
    expect(
      await acts.issueCycle({ subscriptionId: args.subscriptionId, cycle: 1, dueDate: due, settlementDate: due }),
    ).toEqual(issued);
    expect(await chargeRow(issued.chargeId)).toMatchObject({
      status: 'PENDING',
      subscription_id: args.subscriptionId,
      pix_txid: issued.txid,
    });
    expect(await acts.readCycle({ subscriptionId: args.subscriptionId, cycle: 1 })).toEqual({
      cobr: { status: 'ATIVA' },
      // The payer's PSP schedules the first attempt (SOLICITADA, then AGENDADA).
      attempts: [{ date: due, status: expect.stringMatching(/^(SOLICITADA|AGENDADA)$/) }],
    });

    await control(`/cobrs/${issued.txid}/reject`, { codigo: 'AM02' });
    const rejected = await acts.readCycle({ subscriptionId: args.subscriptionId, cycle: 1 });
    expect(rejected.attempts).toEqual([{ date: due, status: 'REJEITADA', rejectionCode: 'AM02' }]);
    const retryOn = addDays(due, 1);
    await acts.requestCycleRetry({ subscriptionId: args.subscriptionId, cycle: 1, date: retryOn });
    await acts.requestCycleRetry({ subscriptionId: args.subscriptionId, cycle: 1, date: retryOn });
    expect(await subscriptionStore.findCycle(stack.sequelize, args.subscriptionId, 1)).toMatchObject({
      status: 'RETRYING',
      retries: 1,
    });

    // Not paid yet: nothing credited, an alert for a person.
    expect(await acts.settleCycle({ subscriptionId: args.subscriptionId, cycle: 1 })).toEqual({
      outcome: 'NOT_CONFIRMED',
    });
    expect((await chargeRow(issued.chargeId)).status).toBe('PENDING');

    await control(`/cobrs/${issued.txid}/pay`);
    expect((await acts.readCycle({ subscriptionId: args.subscriptionId, cycle: 1 })).cobr.status).toBe('CONCLUIDA');
    expect(await acts.settleCycle({ subscriptionId: args.subscriptionId, cycle: 1 })).toEqual({ outcome: 'SETTLED' });
    expect(await acts.settleCycle({ subscriptionId: args.subscriptionId, cycle: 1 })).toEqual({
      outcome: 'ALREADY_PAID',
    });
    await acts.recordSubscriptionState({
      subscriptionId: args.subscriptionId,
      state: 'ACTIVE',
      event: 'subscription.cycle.paid',
      cycle: 1,
    });
    expect((await chargeRow(issued.chargeId)).status).toBe('PAID');
    expect(await subscriptionStore.findCycle(stack.sequelize, args.subscriptionId, 1)).toMatchObject({
      status: 'PAID',
    });
    const [ledger] = await stack.sequelize.query<{ n: string }>(
      `SELECT count(*) AS n FROM ledger_transactions WHERE reference_id = :chargeId`,
      { replacements: { chargeId: issued.chargeId }, type: QueryTypes.SELECT },
    );
    expect(Number(ledger.n)).toBe(1);
    expect((await events(issued.chargeId)).map((e) => e.type)).toEqual(['charge.paid']);
    const subscriptionEvents = await events(args.subscriptionId);
    expect(subscriptionEvents.map((e) => e.type)).toEqual(
      expect.arrayContaining(['subscription.created', 'subscription.authorised', 'subscription.cycle.paid']),
    );
    const paidEvent = subscriptionEvents.find((e) => e.type === 'subscription.cycle.paid');
    expect(paidEvent?.payload).toMatchObject({ status: 'ACTIVE', currentCycle: { cycle: 1, status: 'PAID' } });
    expect(await enrolmentStatus(args.subscriptionId)).toBe('ACTIVE');
  });

  it('a Pix on a cycle txid is not settled by the charge machinery; the notices find the subscription', async () => {
    const { args, prepared } = await authorised();
    const due = args.firstDueDate;
    const issued = await acts.issueCycle({
      subscriptionId: args.subscriptionId,
      cycle: 1,
      dueDate: due,
      settlementDate: due,
    });
    const secret = stack.workerEnv.PIX_WEBHOOK_SECRET;
    const post = (path: string, body: unknown) => stack.api('POST', `/webhooks/pix-api/${secret}${path}`, { body });

    const pix = await post('/pix', {
      pix: [
        {
          endToEndId: `E12345678${today().replace(/-/g, '')}1500${crypto.randomBytes(6).toString('hex').slice(0, 11)}`,
          txid: issued.txid,
          valor: '49.90',
          horario: new Date().toISOString(),
        },
      ],
    });
    expect(pix.status).toBe(200);
    // No workflow runs for this subscription here: found, signalled nowhere, never credited.
    expect(pix.body.outcomes[0].outcome).toBe('UNKNOWN_CHARGE');
    expect((await chargeRow(issued.chargeId)).status).toBe('PENDING');

    const rec = await post('/rec', {
      recs: [{ idRec: prepared.idRec, status: 'APROVADA' }, { idRec: 'R'.repeat(29) }],
    });
    expect(rec.status).toBe(200);
    expect(rec.body).toMatchObject({
      received: true,
      ignored: 0,
      outcomes: [
        { idRec: prepared.idRec, outcome: 'ENDED' },
        { idRec: 'R'.repeat(29), outcome: 'UNKNOWN' },
      ],
    });
    const cobr = await post('/cobr', {
      cobsr: [{ txid: issued.txid, idRec: prepared.idRec, status: 'ATIVA' }, { txid: 'x' }],
    });
    expect(cobr.status).toBe(200);
    expect(cobr.body).toMatchObject({ ignored: 1, outcomes: [{ txid: issued.txid, outcome: 'ENDED' }] });
    expect((await post('/cobr', { nothing: [] })).status).toBe(400);
    expect((await stack.api('POST', `/webhooks/pix-api/${'w'.repeat(64)}/rec`, { body: { recs: [] } })).status).toBe(
      404,
    );
  });

  it('failed for good: FAILED with its reason, the charge closed unpaid (EXPIRED)', async () => {
    const { args } = await authorised();
    const due = args.firstDueDate;
    const issued = await acts.issueCycle({
      subscriptionId: args.subscriptionId,
      cycle: 1,
      dueDate: due,
      settlementDate: due,
    });
    await control(`/cobrs/${issued.txid}/reject`, { codigo: 'MSUC' });
    expect((await acts.readCycle({ subscriptionId: args.subscriptionId, cycle: 1 })).cobr).toEqual({
      status: 'REJEITADA',
      rejectionCode: 'MSUC',
    });
    await acts.failCycle({
      subscriptionId: args.subscriptionId,
      cycle: 1,
      reason: 'COBR_REJECTED',
      rejectionCode: 'MSUC',
    });
    await acts.failCycle({
      subscriptionId: args.subscriptionId,
      cycle: 1,
      reason: 'COBR_REJECTED',
      rejectionCode: 'MSUC',
    });
    expect(await subscriptionStore.findCycle(stack.sequelize, args.subscriptionId, 1)).toMatchObject({
      status: 'FAILED',
      failureReason: 'COBR_REJECTED',
      rejectionCode: 'MSUC',
    });
    expect((await chargeRow(issued.chargeId)).status).toBe('EXPIRED');
    await acts.recordSubscriptionState({
      subscriptionId: args.subscriptionId,
      state: 'SUSPENDED',
      event: 'subscription.cycle.failed',
      cycle: 1,
    });
    expect(await enrolmentStatus(args.subscriptionId)).toBe('SUSPENDED');
  });

  it('the merchant cancels: the open cobr and the rec CANCELADA, the charge CANCELLED', async () => {
    const { args, prepared } = await authorised();
    const due = args.firstDueDate;
    const issued = await acts.issueCycle({
      subscriptionId: args.subscriptionId,
      cycle: 1,
      dueDate: due,
      settlementDate: due,
    });
    await acts.cancelAtProvider({ subscriptionId: args.subscriptionId });
    await acts.cancelAtProvider({ subscriptionId: args.subscriptionId });
    expect(await acts.readRecurrence({ subscriptionId: args.subscriptionId })).toMatchObject({
      status: 'CANCELLED',
      cancelledBy: 'MERCHANT',
    });
    expect((await acts.readCycle({ subscriptionId: args.subscriptionId, cycle: 1 })).cobr.status).toBe('CANCELADA');
    expect((await chargeRow(issued.chargeId)).status).toBe('CANCELLED');
    expect(prepared.idRec).toBeTruthy();
  });
});
