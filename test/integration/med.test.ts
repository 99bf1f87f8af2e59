/**
 * Pix infractions (MED) over HTTP against the real stack: the sandbox provider
 * opens infractions against paid charges; POST /med/infractions/sync pulls them and each gets a
 * medInfraction workflow that blocks the disputed amount. ACCEPT returns it to the payer through
 * the refund flow (the sandbox records the devolução; the block is consumed); REJECT sends the
 * justification to the provider and leaves the case IN_DEFENCE, held, until the PSP (the sandbox's
 * decision control, read by the next sync) upholds the claim (the devolução, once), dismisses it or
 * cancels the case (everything released); an unanswered one gets the default
 * decision (ACCEPT) at its deadline, which the sandbox's PSP makes short for those scenarios only
 * (deadlineSeconds; the others get the rule's 7 days, so their steps never race it). Webhooks are delivered for
 * the events; another merchant's infraction is 404; the ledger invariant holds after each.
 */
import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { authenticator } from 'otplib';
import type { AppClient } from '../support/appClient';
import { waitFor } from '../support/env';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { completedWithdrawal, paidSellerCharge } from '../support/sellerMoney';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { checkRecordedEvents } from '../support/webhookEvents';
import { startReceiver, type Receiver } from '../support/receiver';
import { signedInMerchant } from '../support/signedIn';
import { ensureMedSyncSchedule } from '../../workers/ensureMedSyncSchedule';
import { medSyncScheduleId } from '../../workflows/med/definitions';
import { pspChargeRef } from '../../core/pix/apiPixIds';
import { isCob } from '../../activities/provider/routedPixProvider';
import { sandboxTransferList } from '../support/payouts';
import { addUserToMerchant } from '../../db/identity/userAdmin';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { signedInUser } from '../support/signedIn';

jest.setTimeout(120_000);

let stack: IntegrationStack;
const receivers: Receiver[] = [];
/** The PSP's deadline of the scenarios that wait for it (the sandbox's deadlineSeconds); the others get 7 days. */
const DEADLINE_MS = 20_000;
const MED_EVENTS = [
  'med.infraction.opened',
  'med.infraction.deadline_approaching',
  'med.infraction.accepted',
  'med.infraction.rejected',
  'med.infraction.cancelled',
];

beforeAll(async () => {
  stack = await startIntegrationStack({
    webhookDispatcher: true,
    apiOverrides: { med: { analysisDeadlineMs: 7 * 86_400_000, reminderBeforeMs: 86_400_000 } },
  });
});

afterAll(async () => {
  for (const r of receivers) await r.close();
  await stack?.stop();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

const key = () => ({ 'x-idempotency-key': `med-${crypto.randomUUID()}` });

interface Shop {
  client: AppClient;
  merchantId: string;
  receiver: Receiver;
}

async function shop(): Promise<Shop> {
  const { client, merchantId } = await signedInMerchant(stack, { emailPrefix: 'med', name: 'Loja MED' });
  const cred = await client.call('POST', '/dashboard/credentials', {
    body: { merchantId, name: 'hooks', scopes: ['webhooks:write'] },
  });
  expect(cred.status).toBe(201);
  const receiver = await startReceiver();
  receivers.push(receiver);
  const hook = await stack.api('POST', '/sellers/webhooks', {
    creds: { merchantId, clientId: cred.body.clientId, clientSecret: cred.body.clientSecret },
    body: { url: `${receiver.url}/hook`, events: MED_EVENTS },
  });
  expect(hook.status).toBe(201);
  return { client, merchantId, receiver };
}

async function paidCharge(s: Shop, amountCents: number): Promise<{ id: string; endToEndId: string }> {
  const created = await s.client.call('POST', '/charges', {
    body: { merchantId: s.merchantId, amountCents },
    headers: key(),
  });
  expect(created.status).toBe(201);
  expect((await stack.pay(created.body.id)).status).toBe(200);
  await waitFor(
    async () => (await s.client.call('GET', `/charges/${created.body.id}`)).body.status === 'PAID',
    'charge PAID',
  );
  const [row] = await stack.sequelize.query<{ end_to_end_id: string }>(
    `SELECT end_to_end_id FROM charges WHERE id = :id`,
    { replacements: { id: created.body.id }, type: QueryTypes.SELECT },
  );
  expect(row.end_to_end_id).toMatch(/^E/);
  return { id: created.body.id, endToEndId: row.end_to_end_id };
}

/** How the sandbox knows the charge: a Pix charge by its cob's txid, a boleto by our charge id (its reference). */
async function sandboxRef(chargeId: string): Promise<string> {
  const [row] = await stack.sequelize.query<{ provider_charge_id: string }>(
    `SELECT provider_charge_id FROM charges WHERE id = :id`,
    { replacements: { id: chargeId }, type: QueryTypes.SELECT },
  );
  return isCob(row.provider_charge_id) ? row.provider_charge_id : chargeId;
}

async function sandbox(method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.sandboxUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

/** The DICT opens an infraction at the provider; our sync pulls it; the workflow blocks. */
/**
 * The sandbox's DICT opens an infraction, the gateway syncs it and blocks. `deadlineSeconds`: the
 * PSP's deadline from now (default the rule's 7 days, so a test's steps never race the answer
 * given for the merchant at the deadline; the deadline scenarios pass DEADLINE_MS).
 */
async function openAndSync(s: Shop, chargeId: string, amountCents?: number, deadlineSeconds?: number) {
  const opened = await sandbox('POST', `/sandbox/charges/${await sandboxRef(chargeId)}/infractions`, {
    ...(amountCents ? { amountCents } : {}),
    ...(deadlineSeconds ? { deadlineSeconds } : {}),
  });
  expect(opened.status).toBe(201);
  const synced = await s.client.call('POST', '/med/infractions/sync', { body: { merchantId: s.merchantId } });
  expect(synced.status).toBe(200);
  const mine = synced.body.data.find((i: any) => i.providerInfractionId === opened.body.id);
  expect(mine).toMatchObject({
    merchantId: s.merchantId,
    chargeId,
    status: 'OPEN',
    disputedAmountCents: amountCents ?? expect.any(Number),
    reason: 'FRAUD',
  });
  // The block happens in the infraction's workflow.
  await waitFor(async () => {
    const [row] = await stack.sequelize.query<{ blocked_at: Date | null }>(
      `SELECT blocked_at FROM med_infractions WHERE id = :id`,
      { replacements: { id: mine.id }, type: QueryTypes.SELECT },
    );
    return row.blocked_at !== null;
  }, 'infraction blocked');
  return { id: mine.id as string, providerId: opened.body.id as string };
}

/**
 * The PSP decides the case at the sandbox (UPHELD, DISMISSED, CANCELLED); the next sync reads it
 * and signals the case's workflow; answers the case once it shows `status`.
 */
async function pspDecides(s: Shop, c: { id: string; providerId: string }, outcome: string, status: string) {
  const decided = await sandbox('POST', `/sandbox/infractions/${c.providerId}/decision`, { outcome });
  expect(decided.status).toBe(200);
  const synced = await s.client.call('POST', '/med/infractions/sync', { body: { merchantId: s.merchantId } });
  expect(synced.status).toBe(200);
  return waitFor(async () => {
    const res = await s.client.call('GET', `/med/infractions/${c.id}`);
    return res.body.status === status ? res.body : undefined;
  }, `case ${status} after the PSP's ${outcome}`);
}

const available = (m: string) => balance(stack.sequelize, accounts.merchantAvailable(m));
const blocked = (m: string) => balance(stack.sequelize, accounts.merchantBlocked(m));
const reserved = (m: string) => balance(stack.sequelize, accounts.merchantReserved(m));

async function eventsReceived(r: Receiver, infractionId: string, types: string[]) {
  return waitFor(
    async () => {
      const seen = r.received.map((x) => JSON.parse(x.rawBody)).filter((e) => e.data?.id === infractionId);
      return types.every((t) => seen.some((e) => e.type === t)) ? seen : undefined;
    },
    `webhooks ${types.join(', ')}`,
    60_000,
  );
}

it('ACCEPT: the disputed amount is blocked, then returned to the payer (devolução at the sandbox) and the block consumed', async () => {
  const s = await shop();
  const charge = await paidCharge(s, 10_000);
  expect(await available(s.merchantId)).toBe(9_900); // 1 % fee
  const { id, providerId } = await openAndSync(s, charge.id, 5_000);
  expect(await available(s.merchantId)).toBe(4_900);
  expect(await blocked(s.merchantId)).toBe(5_000);
  expect((await s.client.call('GET', `/med/infractions/${id}`)).body).toMatchObject({
    status: 'OPEN',
    blockedAmountCents: 5_000,
    disputedAmountCents: 5_000,
    endToEndId: charge.endToEndId,
  });
  // The dashboard reports the blocked money.
  expect((await s.client.call('GET', `/dashboard/stats?merchantId=${s.merchantId}`)).body.balance).toEqual({
    availableCents: 4_900,
    reservedCents: 0,
    blockedCents: 5_000,
    source: 'ledger',
    psp: null,
  });

  const retryKey = key();
  const decided = await s.client.call('POST', `/med/infractions/${id}/analysis`, {
    body: { decision: 'ACCEPT', justification: 'confirmed fraud with the customer' },
    headers: retryKey,
  });
  expect(decided.status).toBe(200);
  // A retry with the same key answers the first answer (not 409), and decides nothing again.
  const replay = await s.client.call('POST', `/med/infractions/${id}/analysis`, {
    body: { decision: 'ACCEPT', justification: 'confirmed fraud with the customer' },
    headers: retryKey,
  });
  expect(replay.status).toBe(200);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body).toEqual(decided.body);
  expect(decided.body).toMatchObject({
    id,
    status: 'ACCEPTED',
    decision: 'ACCEPT',
    justification: 'confirmed fraud with the customer',
    decidedBy: expect.any(String),
    refundId: expect.any(String),
  });
  const settled = await waitFor(async () => {
    const res = await s.client.call('GET', `/med/infractions/${id}`);
    return res.body.refundStatus === 'SUCCEEDED' ? res.body : undefined;
  }, 'devolução SUCCEEDED');
  // Block consumed: the merchant gave back its share (4 950) of the 5 000; the platform its fee share (50).
  expect(await blocked(s.merchantId)).toBe(0);
  expect(await reserved(s.merchantId)).toBe(0);
  expect(await available(s.merchantId)).toBe(9_900 - 4_950);
  // The refund is the charge's, through the refund flow.
  const chargeView = (await s.client.call('GET', `/charges/${charge.id}`)).body;
  expect(chargeView.refunds).toEqual([
    expect.objectContaining({ id: settled.refundId, amountCents: 5_000, status: 'SUCCEEDED' }),
  ]);
  // The sandbox's own records: the devolução of this payment, and the provider's infraction answered.
  const transfers = await sandboxTransferList(stack);
  expect(transfers.filter((t: any) => t.returnOf === charge.endToEndId)).toEqual([
    expect.objectContaining({ reference: settled.refundId, amountCents: 5_000, status: 'COMPLETED' }),
  ]);
  const atProvider = (await sandbox('GET', '/sandbox/infractions')).body.infractions.find(
    (i: any) => i.id === providerId,
  );
  expect(atProvider).toMatchObject({
    status: 'ACCEPTED',
    decision: 'ACCEPT',
    justification: 'confirmed fraud with the customer',
  });
  // Decided once: a second answer is refused and changes nothing.
  const again = await s.client.call('POST', `/med/infractions/${id}/analysis`, {
    body: { decision: 'REJECT', justification: 'changed my mind' },
  });
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe('INFRACTION_ALREADY_DECIDED');
  expect((await s.client.call('GET', `/med/infractions/${id}`)).body).toMatchObject({
    status: 'ACCEPTED',
    decision: 'ACCEPT',
  });
  await eventsReceived(s.receiver, id, ['med.infraction.opened', 'med.infraction.accepted']);
});

it('REJECT (bulk route): the justification reaches the provider, the case is IN_DEFENCE and stays blocked until the PSP dismisses it, then the block is released; bad input and unknown ids change nothing', async () => {
  const s = await shop();
  const charge = await paidCharge(s, 3_000);
  const { id, providerId } = await openAndSync(s, charge.id, 1_000);
  expect(await blocked(s.merchantId)).toBe(1_000);
  expect(await available(s.merchantId)).toBe(1_970);

  for (const body of [
    { decision: 'MAYBE', justification: 'x' },
    { decision: 'REJECT', justification: '' },
    { decision: 'REJECT' },
    { decision: 'REJECT', justification: 'x'.repeat(2001) },
    { decision: 'REJECT', justification: 'golpe\u0000 confirmado' },
  ]) {
    const bad = await s.client.call('POST', `/med/infractions/${id}/analysis`, { body });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
  }
  expect((await s.client.call('POST', '/med/infractions/analysis', { body: { items: [] } })).status).toBe(400);
  expect((await s.client.call('GET', `/med/infractions/not-a-uuid`)).status).toBe(400);
  expect((await s.client.call('GET', `/med/infractions/${id}`)).body.status).toBe('OPEN');

  const unknown = crypto.randomUUID();
  const bulk = await s.client.call('POST', '/med/infractions/analysis', {
    body: {
      items: [
        { id, decision: 'REJECT', justification: 'the customer received the goods; delivery proof attached' },
        { id: unknown, decision: 'REJECT', justification: 'x' },
      ],
    },
  });
  expect(bulk.status).toBe(200);
  expect(bulk.body.results).toEqual([
    expect.objectContaining({
      id,
      status: 200,
      infraction: expect.objectContaining({
        status: 'IN_DEFENCE',
        decision: 'REJECT',
        refundId: null,
        pspOutcome: null,
      }),
    }),
    expect.objectContaining({
      id: unknown,
      status: 404,
      error: expect.objectContaining({ code: 'INFRACTION_NOT_FOUND' }),
    }),
  ]);
  // In defence: the PSP decides; the block stays.
  expect(await blocked(s.merchantId)).toBe(1_000);
  const atProvider = async () =>
    (await sandbox('GET', '/sandbox/infractions')).body.infractions.find((i: any) => i.id === providerId);
  expect(await atProvider()).toMatchObject({
    status: 'IN_DEFENCE',
    decision: 'REJECT',
    justification: 'the customer received the goods; delivery proof attached',
  });
  const inDefence = await s.client.call('GET', `/med/infractions?merchantId=${s.merchantId}&status=IN_DEFENCE`);
  expect(inDefence.body.data.map((i: any) => i.id)).toEqual([id]);
  // The PSP dismisses the claim (the defence won): everything released.
  const dismissed = await pspDecides(s, { id, providerId }, 'DISMISSED', 'REJECTED');
  expect(dismissed).toMatchObject({ pspOutcome: 'DISMISSED', pspDecidedAt: expect.any(String), refundId: null });
  expect(await blocked(s.merchantId)).toBe(0);
  expect(await available(s.merchantId)).toBe(2_970);
  expect(await atProvider()).toMatchObject({ status: 'REJECTED', closedAt: expect.any(String) });
  expect(await movementCount(`med-unblock:${id}`)).toBe(1);
  // No devolução was sent for this payment.
  expect((await sandboxTransferList(stack)).filter((t: any) => t.returnOf === charge.endToEndId)).toEqual([]);
  const list = await s.client.call('GET', `/med/infractions?merchantId=${s.merchantId}&status=REJECTED`);
  expect(list.body).toMatchObject({
    data: [expect.objectContaining({ id })],
    pagination: { total: 1, limit: 20, offset: 0, hasMore: false },
  });
  await eventsReceived(s.receiver, id, ['med.infraction.opened', 'med.infraction.rejected']);
});

it('unanswered until the deadline: the reminder, then the default decision ACCEPT (devolução of what was blocked, never a negative balance)', async () => {
  const s = await shop();
  const charge = await paidCharge(s, 2_000);
  // The whole paid amount is disputed; the merchant has only its net (1 980): that is what is blocked.
  const { id, providerId } = await openAndSync(s, charge.id, undefined, DEADLINE_MS / 1000);
  expect(await blocked(s.merchantId)).toBe(1_980);
  expect(await available(s.merchantId)).toBe(0);
  expect((await s.client.call('GET', `/med/infractions/${id}`)).body).toMatchObject({
    disputedAmountCents: 2_000,
    blockedAmountCents: 1_980,
  });
  const done = await waitFor(
    async () => {
      const res = await s.client.call('GET', `/med/infractions/${id}`);
      return res.body.refundStatus === 'SUCCEEDED' ? res.body : undefined;
    },
    'default decision applied and devolução settled',
    DEADLINE_MS + 40_000,
  );
  expect(done).toMatchObject({
    status: 'ACCEPTED',
    decision: 'ACCEPT',
    decidedBy: 'DEFAULT',
    justification: 'no analysis before the deadline',
  });
  // Answered just before the deadline (a tenth of this short window at most; 15 min of a real one): the PSP refuses answers after it.
  expect(Date.parse(done.decidedAt)).toBeGreaterThanOrEqual(Date.parse(done.deadlineAt) - DEADLINE_MS / 10);
  expect(await blocked(s.merchantId)).toBe(0);
  expect(await available(s.merchantId)).toBe(0);
  const transfers = await sandboxTransferList(stack);
  expect(transfers.filter((t: any) => t.returnOf === charge.endToEndId)).toEqual([
    expect.objectContaining({ amountCents: 2_000, status: 'COMPLETED' }),
  ]);
  expect(
    (await sandbox('GET', '/sandbox/infractions')).body.infractions.find((i: any) => i.id === providerId),
  ).toMatchObject({ status: 'ACCEPTED', justification: 'no analysis before the deadline' });
  await eventsReceived(s.receiver, id, [
    'med.infraction.opened',
    'med.infraction.deadline_approaching',
    'med.infraction.accepted',
  ]);
});

it("another merchant's infraction is 404 on every route, and nothing changes", async () => {
  const a = await shop();
  const charge = await paidCharge(a, 1_500);
  const { id } = await openAndSync(a, charge.id, 500);
  const b = await shop();
  for (const [method, path, body] of [
    ['GET', `/med/infractions/${id}`, undefined],
    ['POST', `/med/infractions/${id}/analysis`, { decision: 'ACCEPT', justification: 'not mine' }],
    ['POST', `/med/infractions/${id}/analysis`, { decision: 'REJECT', justification: 'not mine' }],
  ] as const) {
    const res = await b.client.call(method, path, body ? { body } : {});
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('INFRACTION_NOT_FOUND');
  }
  const bulk = await b.client.call('POST', '/med/infractions/analysis', {
    body: { items: [{ id, decision: 'REJECT', justification: 'not mine' }] },
  });
  expect(bulk.body.results).toEqual([expect.objectContaining({ id, status: 404 })]);
  for (const [method, path] of [
    ['GET', `/med/infractions?merchantId=${a.merchantId}`],
    ['POST', '/med/infractions/sync'],
  ] as const) {
    const res = await b.client.call(method, path, method === 'POST' ? { body: { merchantId: a.merchantId } } : {});
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('MERCHANT_NOT_FOUND');
  }
  expect((await b.client.call('GET', '/med/infractions')).body.data).toEqual([]);
  expect((await a.client.call('GET', `/med/infractions/${id}`)).body).toMatchObject({
    status: 'OPEN',
    blockedAmountCents: 500,
  });
  // Leave nothing running into the next test's ledger checks.
  expect(
    (
      await a.client.call('POST', `/med/infractions/${id}/analysis`, {
        body: { decision: 'REJECT', justification: 'legitimate sale' },
      })
    ).status,
  ).toBe(200);
});

it('ACCEPT whose devolução the payer’s bank refuses: the disputed money goes back to available, refundStatus FAILED', async () => {
  const s = await shop();
  const charge = await paidCharge(s, 3_000);
  // The sandbox refuses returns of an amount ending in 13 cents.
  const { id } = await openAndSync(s, charge.id, 1_013);
  expect(await blocked(s.merchantId)).toBe(1_013);
  const decided = await s.client.call('POST', `/med/infractions/${id}/analysis`, {
    body: { decision: 'ACCEPT', justification: 'fraud confirmed' },
  });
  expect(decided.status).toBe(200);
  const done = await waitFor(async () => {
    const res = await s.client.call('GET', `/med/infractions/${id}`);
    return res.body.refundStatus && res.body.refundStatus !== 'PROCESSING' ? res.body : undefined;
  }, 'devolução settled');
  expect(done).toMatchObject({ status: 'ACCEPTED', refundStatus: 'FAILED' });
  expect(await blocked(s.merchantId)).toBe(0);
  expect(await reserved(s.merchantId)).toBe(0);
  expect(await available(s.merchantId)).toBe(2_970);
  const transfers = (await sandboxTransferList(stack)).filter((t: any) => t.returnOf === charge.endToEndId);
  expect(transfers).toEqual([
    expect.objectContaining({ amountCents: 1_013, status: 'FAILED', failureCode: 'RETURN_REFUSED' }),
  ]);
});

it('ACCEPT needs the second factor of a user who has one (action "refund"); REJECT does not', async () => {
  const s = await shop();
  const charge = await paidCharge(s, 4_000);
  const first = await openAndSync(s, charge.id, 1_000);
  const second = await openAndSync(s, charge.id, 1_500);
  const setup = await s.client.call('POST', '/auth/2fa/totp/setup');
  await s.client.call('POST', '/auth/2fa/totp/confirm', { body: { code: authenticator.generate(setup.body.secret) } });
  const without = await s.client.call('POST', `/med/infractions/${first.id}/analysis`, {
    body: { decision: 'ACCEPT', justification: 'fraud' },
  });
  expect(without.status).toBe(403);
  expect(without.body.error).toMatchObject({ code: 'SECOND_FACTOR_REQUIRED', details: { action: 'refund' } });
  expect((await s.client.call('GET', `/med/infractions/${first.id}`)).body).toMatchObject({
    status: 'OPEN',
    decision: null,
  });
  expect(await blocked(s.merchantId)).toBe(2_500);
  // The bulk route asks once for the request too, and changes nothing without it.
  const bulkWithout = await s.client.call('POST', '/med/infractions/analysis', {
    body: {
      items: [
        { id: first.id, decision: 'ACCEPT', justification: 'fraud' },
        { id: second.id, decision: 'REJECT', justification: 'ok' },
      ],
    },
  });
  expect(bulkWithout.status).toBe(403);
  expect((await s.client.call('GET', `/med/infractions/${second.id}`)).body.status).toBe('OPEN');

  const start = await s.client.call('POST', '/auth/2fa/action/start', { body: { action: 'refund' } });
  // The next time step: the confirm above used this one.
  const code = authenticator
    .clone({ epoch: (Math.floor(Date.now() / 30_000) + 1) * 30_000 })
    .generate(setup.body.secret);
  const token = await s.client.call('POST', '/auth/2fa/action/confirm', {
    body: { challengeId: start.body.challengeId, code },
  });
  expect(token.status).toBe(200);
  const ok = await s.client.call('POST', `/med/infractions/${first.id}/analysis`, {
    body: { decision: 'ACCEPT', justification: 'fraud' },
    headers: { 'x-action-token': token.body.actionToken },
  });
  expect(ok.status).toBe(200);
  expect(ok.body.status).toBe('ACCEPTED');
  const rejected = await s.client.call('POST', `/med/infractions/${second.id}/analysis`, {
    body: { decision: 'REJECT', justification: 'legitimate sale' },
  });
  expect(rejected.status).toBe(200);
  expect(rejected.body.status).toBe('IN_DEFENCE');
  await waitFor(
    async () => (await s.client.call('GET', `/med/infractions/${first.id}`)).body.refundStatus === 'SUCCEEDED',
    'devolução SUCCEEDED',
  );
  // The defended one stays held until the PSP decides it.
  expect(await blocked(s.merchantId)).toBe(1_500);
  await pspDecides(s, second, 'DISMISSED', 'REJECTED');
  expect(await blocked(s.merchantId)).toBe(0);
});

it('ACCEPT after a partial refund: the devolução returns what is left of the payment (never more than paid), the block consumed', async () => {
  const s = await shop();
  const charge = await paidCharge(s, 2_000);
  const refund = await s.client.call('POST', `/charges/${charge.id}/refund`, {
    body: { amountCents: 1_500, reason: 'parcial' },
    headers: key(),
  });
  expect(refund.status).toBe(200);
  await waitFor(
    async () => (await s.client.call('GET', `/charges/${charge.id}`)).body.refunds[0].status === 'SUCCEEDED',
    'refund SUCCEEDED',
  );
  expect(await available(s.merchantId)).toBe(495);
  // The whole payment is disputed; the merchant has 495 left: that is blocked.
  const { id } = await openAndSync(s, charge.id);
  expect(await blocked(s.merchantId)).toBe(495);
  expect(
    (
      await s.client.call('POST', `/med/infractions/${id}/analysis`, {
        body: { decision: 'ACCEPT', justification: 'fraud' },
      })
    ).status,
  ).toBe(200);
  const done = await waitFor(async () => {
    const res = await s.client.call('GET', `/med/infractions/${id}`);
    return res.body.refundStatus === 'SUCCEEDED' ? res.body : undefined;
  }, 'devolução SUCCEEDED');
  expect(done).toMatchObject({ disputedAmountCents: 2_000, blockedAmountCents: 495, refundAmountCents: 500 });
  expect(await blocked(s.merchantId)).toBe(0);
  expect(await available(s.merchantId)).toBe(0);
  const returns = (await sandboxTransferList(stack)).filter(
    (t: any) => t.returnOf === charge.endToEndId && t.status === 'COMPLETED',
  );
  expect(returns.map((t: any) => t.amountCents).sort()).toEqual([1_500, 500]);
});

it('ACCEPT on a hybrid boleto paid through its Pix returns the money by devolução of that payment, exactly once', async () => {
  const s = await shop();
  const created = await s.client.call('POST', '/charges', {
    body: {
      merchantId: s.merchantId,
      amountCents: 10_000,
      method: 'BOLETO',
      payer: { name: 'Bia Souza', taxId: '529.982.247-25' },
    },
    headers: key(),
  });
  expect(created.status).toBe(201);
  expect((await sandbox('POST', `/sandbox/boletos/${created.body.id}/pay`, { via: 'PIX' })).status).toBe(200);
  await waitFor(
    async () => (await s.client.call('GET', `/charges/${created.body.id}`)).body.status === 'PAID',
    'boleto PAID by Pix',
  );
  const [row] = await stack.sequelize.query<{ end_to_end_id: string }>(
    `SELECT end_to_end_id FROM charges WHERE id = :id`,
    { replacements: { id: created.body.id }, type: QueryTypes.SELECT },
  );
  expect(row.end_to_end_id).toMatch(/^E/);
  const availableBefore = await available(s.merchantId);
  const { id, providerId } = await openAndSync(s, created.body.id, 4_000);
  // Frozen meanwhile: a devolução ordered by the MED still goes back to the payer.
  await stack.sequelize.query(`UPDATE merchants SET withdrawals_frozen = true WHERE id = :id`, {
    replacements: { id: s.merchantId },
  });

  const decided = await s.client.call('POST', `/med/infractions/${id}/analysis`, {
    body: { decision: 'ACCEPT', justification: 'confirmed fraud with the customer' },
    headers: key(),
  });
  expect(decided.status).toBe(200);
  const settled = await waitFor(async () => {
    const res = await s.client.call('GET', `/med/infractions/${id}`);
    return res.body.refundStatus !== 'PROCESSING' ? res.body : undefined;
  }, 'devolução settled');
  expect(settled).toMatchObject({ status: 'ACCEPTED', refundStatus: 'SUCCEEDED', refundAmountCents: 4_000 });
  expect(await blocked(s.merchantId)).toBe(0);
  expect(await reserved(s.merchantId)).toBe(0);
  expect(await available(s.merchantId)).toBeLessThan(availableBefore);
  const returns = (await sandboxTransferList(stack)).filter((t: any) => t.returnOf === row.end_to_end_id);
  expect(returns).toEqual([expect.objectContaining({ amountCents: 4_000, status: 'COMPLETED' })]);
  expect(
    (await sandbox('GET', '/sandbox/infractions')).body.infractions.find((i: any) => i.id === providerId),
  ).toMatchObject({ status: 'ACCEPTED' });
  expect((await s.client.call('GET', `/charges/${created.body.id}`)).body.refunds).toEqual([
    expect.objectContaining({ amountCents: 4_000, status: 'SUCCEEDED' }),
  ]);
});

it('the Schedule med-infraction-sync-<task queue> (every 15 minutes, created once) runs the same sync: a triggered run picks up a new infraction and blocks it', async () => {
  const s = await shop();
  const charge = await paidCharge(s, 1_000);
  const opened = await sandbox('POST', `/sandbox/charges/${pspChargeRef(charge.id)}/infractions`, { amountCents: 300 });
  expect(opened.status).toBe(201);
  const settings = { analysisDeadlineMs: 7 * 86_400_000, reminderBeforeMs: 86_400_000 };
  await ensureMedSyncSchedule(stack.temporal, stack.taskQueue, settings);
  await ensureMedSyncSchedule(stack.temporal, stack.taskQueue, settings); // idempotent at every boot
  const handle = stack.temporal.schedule.getHandle(medSyncScheduleId(stack.taskQueue));
  try {
    const described = await handle.describe();
    expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'medInfractionSync' });
    expect(described.spec.intervals).toEqual([expect.objectContaining({ every: 15 * 60_000 })]);
    await handle.trigger();
    const row = await waitFor(async () => {
      const [r] = await stack.sequelize.query<{
        id: string;
        blocked_cents: string;
        blocked_at: Date | null;
        deadline_at: Date;
      }>(`SELECT id, blocked_cents, blocked_at, deadline_at FROM med_infractions WHERE provider_infraction_id = :pid`, {
        replacements: { pid: opened.body.id },
        type: QueryTypes.SELECT,
      });
      return r?.blocked_at ? r : undefined;
    }, 'scheduled sync stored and blocked the infraction');
    expect(Number(row.blocked_cents)).toBe(300);
    expect(await blocked(s.merchantId)).toBe(300);
    // The schedule's own deadline setting (7 days) applies to what it stores.
    expect(new Date(row.deadline_at).getTime() - Date.now()).toBeGreaterThan(6 * 86_400_000);
    expect(
      (
        await s.client.call('POST', `/med/infractions/${row.id}/analysis`, {
          body: { decision: 'REJECT', justification: 'legitimate sale' },
        })
      ).status,
    ).toBe(200);
    expect(await blocked(s.merchantId)).toBe(300);
    // The scheduled sync reads the PSP's decision of the defended case too.
    expect(
      (await sandbox('POST', `/sandbox/infractions/${opened.body.id}/decision`, { outcome: 'DISMISSED' })).status,
    ).toBe(200);
    await handle.trigger();
    await waitFor(async () => (await blocked(s.merchantId)) === 0 || undefined, 'released after the PSP dismissed it');
  } finally {
    await handle.delete();
  }
});

// --- MED 2.0 (issue 38): a claim reaches money that already moved on ---------------------------

const owed = (m: string) => balance(stack.sequelize, accounts.merchantOwed(m));

/** A merchant with API credentials (charges, withdrawals to its own key) and a dashboard owner (MED routes, refunds). */
async function platformMerchant(name: string) {
  const creds = await stack.createMerchant({
    name,
    document: '11144477735',
    pixKey: `financeiro+${crypto.randomUUID().slice(0, 8)}@med2.com.br`,
    pixKeyType: 'EMAIL',
  });
  const { client, email } = await signedInUser(stack, { emailPrefix: 'med2' });
  await addUserToMerchant({ email, merchantId: creds.merchantId, role: 'owner' });
  return { creds, shop: { client, merchantId: creds.merchantId } as Shop };
}

const sellerCharge = (creds: MerchantCredentials, body: Record<string, unknown>) =>
  paidSellerCharge(stack, creds, body);
const withdrawn = (creds: MerchantCredentials, amountCents: number) => completedWithdrawal(stack, creds, amountCents);

async function movementCount(prefix: string): Promise<number> {
  const [row] = await stack.sequelize.query<{ n: string }>(
    `SELECT count(*) AS n FROM ledger_transactions WHERE movement_key LIKE :prefix`,
    { replacements: { prefix: `${prefix}%` }, type: QueryTypes.SELECT },
  );
  return Number(row.n);
}

async function ledgerOf(m: string) {
  return { available: await available(m), blocked: await blocked(m), reserved: await reserved(m), owed: await owed(m) };
}

it('MED 2.0 ACCEPT: a split charge, withdrawn in part by both, claimed in full: each blocks what it has and owes the rest; a later receipt recovers into blocked; no refund while open; the devolução is paid once and the rest stays owed', async () => {
  const owner = await platformMerchant('Loja MED 2');
  const partner = await platformMerchant('Parceiro MED 2');
  // Money in the platform's account at the sandbox for the devolução (it is one pooled account).
  const funder = await platformMerchant('Outra loja');
  await sellerCharge(funder.creds, { amountCents: 20_000 });

  // R$ 100,00, 1 % fee (100), R$ 30,00 to the partner: owner net 6 900, partner 3 000.
  const chargeId = await sellerCharge(owner.creds, {
    amountCents: 10_000,
    splits: [{ merchantId: partner.creds.merchantId, amountCents: 3_000 }],
  });
  await withdrawn(owner.creds, 5_000);
  await withdrawn(partner.creds, 2_000);
  expect(await available(owner.creds.merchantId)).toBe(1_900);
  expect(await available(partner.creds.merchantId)).toBe(1_000);

  // Claimed in full: the platform bears its fee share (100); the owner's share 6 900, the partner's 3 000.
  const { id } = await openAndSync(owner.shop, chargeId, 10_000);
  expect(await ledgerOf(owner.creds.merchantId)).toEqual({ available: 0, blocked: 1_900, reserved: 0, owed: -5_000 });
  expect(await ledgerOf(partner.creds.merchantId)).toEqual({ available: 0, blocked: 1_000, reserved: 0, owed: -2_000 });
  expect((await owner.shop.client.call('GET', `/med/infractions/${id}`)).body).toMatchObject({
    blockedAmountCents: 1_900,
    parties: [
      { merchantId: owner.creds.merchantId, shareCents: 6_900, heldCents: 1_900, owedCents: 5_000 },
      { merchantId: partner.creds.merchantId, shareCents: 3_000, heldCents: 1_000, owedCents: 2_000 },
    ],
  });
  await assertLedgerInvariant(stack.sequelize);

  // A later receipt (3 000, net 2 970) goes to the debt first: blocked, not available.
  await sellerCharge(owner.creds, { amountCents: 3_000 });
  expect(await ledgerOf(owner.creds.merchantId)).toEqual({ available: 0, blocked: 4_870, reserved: 0, owed: -2_030 });
  expect(await movementCount(`med-recover:${id}:${owner.creds.merchantId}:`)).toBe(1);

  // While the case is open: no refund of the contested charge, no withdrawal of blocked money.
  const refund = await owner.shop.client.call('POST', `/charges/${chargeId}/refund`, {
    body: { amountCents: 1_000, reason: 'cliente pediu' },
    headers: key(),
  });
  expect(refund.status).toBe(409);
  expect(refund.body.error).toMatchObject({ code: 'REFUND_INFRACTION_OPEN', message: expect.any(String) });
  const saque = await stack.api('POST', '/sellers/saques', {
    creds: owner.creds,
    body: { amountCents: 100 },
    headers: key(),
  });
  expect(saque.status).toBe(400);
  expect(saque.body.error.code).toBe('INSUFFICIENT_AVAILABLE_BALANCE');
  expect(await blocked(owner.creds.merchantId)).toBe(4_870);
  await assertLedgerInvariant(stack.sequelize);

  const decided = await owner.shop.client.call('POST', `/med/infractions/${id}/analysis`, {
    body: { decision: 'ACCEPT', justification: 'fraude confirmada' },
    headers: key(),
  });
  expect(decided.status).toBe(200);
  const done = await waitFor(async () => {
    const res = await owner.shop.client.call('GET', `/med/infractions/${id}`);
    return res.body.refundStatus === 'SUCCEEDED' ? res.body : undefined;
  }, 'devolução SUCCEEDED');
  // Paid once, in full, to the payer.
  const [row] = await stack.sequelize.query<{ end_to_end_id: string }>(
    `SELECT end_to_end_id FROM charges WHERE id = :id`,
    { replacements: { id: chargeId }, type: QueryTypes.SELECT },
  );
  expect((await sandboxTransferList(stack)).filter((t: any) => t.returnOf === row.end_to_end_id)).toEqual([
    expect.objectContaining({ reference: done.refundId, amountCents: 10_000, status: 'COMPLETED' }),
  ]);
  // Explained: the owner gave back what it held (4 870), the partner its 1 000, the platform its fee
  // share (100) and advanced the rest (4 030), which the merchants still owe.
  expect(await ledgerOf(owner.creds.merchantId)).toEqual({ available: 0, blocked: 0, reserved: 0, owed: -2_030 });
  expect(await ledgerOf(partner.creds.merchantId)).toEqual({ available: 0, blocked: 0, reserved: 0, owed: -2_000 });
  const [shares] = await stack.sequelize.query<{ shares: any }>(`SELECT shares FROM refunds WHERE id = :id`, {
    replacements: { id: done.refundId },
    type: QueryTypes.SELECT,
  });
  expect(shares.shares).toEqual({
    ownerCents: 4_870,
    feeCents: 100,
    splits: [{ merchantId: partner.creds.merchantId, amountCents: 1_000 }],
    advancedCents: 4_030,
  });
  await assertLedgerInvariant(stack.sequelize);

  // After the devolução a receipt pays the platform back (available → owed), once.
  await sellerCharge(partner.creds, { amountCents: 1_000 });
  expect(await ledgerOf(partner.creds.merchantId)).toEqual({ available: 0, blocked: 0, reserved: 0, owed: -1_010 });
  expect(await movementCount(`med-block:${id}`)).toBe(1);
  expect(await movementCount(`refund-complete:${done.refundId}`)).toBe(1);
});

it('MED 2.0 REJECT: in defence the holds and debts stay and a later receipt still recovers; dismissed by the PSP, every hold is released and the debt cancelled, one keyed transaction per party', async () => {
  const owner = await platformMerchant('Loja MED 2 rejeitada');
  const partner = await platformMerchant('Parceiro MED 2 rejeitado');
  // 4 000, fee 40, 1 000 to the partner: owner net 2 960.
  const chargeId = await sellerCharge(owner.creds, {
    amountCents: 4_000,
    splits: [{ merchantId: partner.creds.merchantId, amountCents: 1_000 }],
  });
  await withdrawn(owner.creds, 2_000);
  const opened = await openAndSync(owner.shop, chargeId, 4_000);
  const { id } = opened;
  expect(await ledgerOf(owner.creds.merchantId)).toEqual({ available: 0, blocked: 960, reserved: 0, owed: -2_000 });
  expect(await ledgerOf(partner.creds.merchantId)).toEqual({ available: 0, blocked: 1_000, reserved: 0, owed: 0 });
  await sellerCharge(owner.creds, { amountCents: 1_000 });
  expect(await ledgerOf(owner.creds.merchantId)).toEqual({ available: 0, blocked: 1_950, reserved: 0, owed: -1_010 });
  await assertLedgerInvariant(stack.sequelize);

  const decided = await owner.shop.client.call('POST', `/med/infractions/${id}/analysis`, {
    body: { decision: 'REJECT', justification: 'o cliente recebeu o produto' },
    headers: key(),
  });
  expect(decided.status).toBe(200);
  // In defence: nothing released, the debt still owed.
  expect(decided.body).toMatchObject({
    status: 'IN_DEFENCE',
    parties: [
      { merchantId: owner.creds.merchantId, heldCents: 1_950, owedCents: 1_010 },
      { merchantId: partner.creds.merchantId, heldCents: 1_000, owedCents: 0 },
    ],
  });
  expect(await movementCount(`med-unblock:${id}`)).toBe(0);
  // Recovery goes on while the PSP analyses the defence: a receipt (net 990) goes to the debt, held.
  await sellerCharge(owner.creds, { amountCents: 1_000 });
  expect(await ledgerOf(owner.creds.merchantId)).toEqual({ available: 0, blocked: 2_940, reserved: 0, owed: -20 });
  // No refund of the contested charge while it is in defence.
  const whileDefended = await owner.shop.client.call('POST', `/charges/${chargeId}/refund`, {
    body: { amountCents: 100, reason: 'cliente pediu' },
    headers: key(),
  });
  expect(whileDefended.status).toBe(409);
  expect(whileDefended.body.error.code).toBe('REFUND_INFRACTION_OPEN');
  await assertLedgerInvariant(stack.sequelize);

  const dismissed = await pspDecides(owner.shop, opened, 'DISMISSED', 'REJECTED');
  expect(dismissed).toMatchObject({
    pspOutcome: 'DISMISSED',
    parties: [
      { merchantId: owner.creds.merchantId, heldCents: 2_940, owedCents: 0 },
      { merchantId: partner.creds.merchantId, heldCents: 1_000, owedCents: 0 },
    ],
  });
  expect(await ledgerOf(owner.creds.merchantId)).toEqual({ available: 2_940, blocked: 0, reserved: 0, owed: 0 });
  expect(await ledgerOf(partner.creds.merchantId)).toEqual({ available: 1_000, blocked: 0, reserved: 0, owed: 0 });
  expect(await movementCount(`med-unblock:${id}`)).toBe(2); // the owner's and the partner's
  expect(await movementCount(`med-debt-cancel:${id}:${owner.creds.merchantId}`)).toBe(1);
  // No devolução was sent.
  const [paid] = await stack.sequelize.query<{ end_to_end_id: string }>(
    `SELECT end_to_end_id FROM charges WHERE id = :id`,
    { replacements: { id: chargeId }, type: QueryTypes.SELECT },
  );
  expect((await sandboxTransferList(stack)).filter((t: any) => t.returnOf === paid.end_to_end_id)).toEqual([]);
  // The case is over: a later receipt is the merchant's, and the charge may be refunded again.
  await sellerCharge(owner.creds, { amountCents: 1_000 });
  expect(await available(owner.creds.merchantId)).toBe(2_940 + 990);
  const refund = await owner.shop.client.call('POST', `/charges/${chargeId}/refund`, {
    body: { amountCents: 100, reason: 'cliente pediu' },
    headers: key(),
  });
  expect(refund.status).toBe(200);
});

it('MED 2.0 defended, then upheld by the PSP: the devolução is paid once from what was held and recovered, the platform advances the rest, the ledger balanced', async () => {
  const owner = await platformMerchant('Loja MED 2 mantida');
  const partner = await platformMerchant('Parceiro MED 2 mantido');
  // Money in the platform's account at the sandbox for the devolução (it is one pooled account).
  const funder = await platformMerchant('Outra loja mantida');
  await sellerCharge(funder.creds, { amountCents: 10_000 });
  // 4 000, fee 40, 1 000 to the partner: owner net 2 960; the owner withdraws 2 000.
  const chargeId = await sellerCharge(owner.creds, {
    amountCents: 4_000,
    splits: [{ merchantId: partner.creds.merchantId, amountCents: 1_000 }],
  });
  await withdrawn(owner.creds, 2_000);
  const opened = await openAndSync(owner.shop, chargeId, 4_000);
  const { id } = opened;
  expect(await ledgerOf(owner.creds.merchantId)).toEqual({ available: 0, blocked: 960, reserved: 0, owed: -2_000 });
  const defended = await owner.shop.client.call('POST', `/med/infractions/${id}/analysis`, {
    body: { decision: 'REJECT', justification: 'o cliente recebeu o produto' },
    headers: key(),
  });
  expect(defended.body.status).toBe('IN_DEFENCE');
  // Recovery goes on in defence: a receipt (net 990) is held for the case.
  await sellerCharge(owner.creds, { amountCents: 1_000 });
  expect(await ledgerOf(owner.creds.merchantId)).toEqual({ available: 0, blocked: 1_950, reserved: 0, owed: -1_010 });

  const upheld = await pspDecides(owner.shop, opened, 'UPHELD', 'ACCEPTED');
  expect(upheld).toMatchObject({ pspOutcome: 'UPHELD', decision: 'REJECT', refundAmountCents: 4_000 });
  const done = await waitFor(async () => {
    const res = await owner.shop.client.call('GET', `/med/infractions/${id}`);
    return res.body.refundStatus === 'SUCCEEDED' ? res.body : undefined;
  }, 'devolução SUCCEEDED');
  // A later sync sees the decision again: nothing more happens (the case is no longer held).
  expect(
    (await owner.shop.client.call('POST', '/med/infractions/sync', { body: { merchantId: owner.creds.merchantId } }))
      .status,
  ).toBe(200);
  const [row] = await stack.sequelize.query<{ end_to_end_id: string }>(
    `SELECT end_to_end_id FROM charges WHERE id = :id`,
    { replacements: { id: chargeId }, type: QueryTypes.SELECT },
  );
  // Paid once, in full, to the payer.
  expect((await sandboxTransferList(stack)).filter((t: any) => t.returnOf === row.end_to_end_id)).toEqual([
    expect.objectContaining({ reference: done.refundId, amountCents: 4_000, status: 'COMPLETED' }),
  ]);
  // What was held (owner 1 950, partner 1 000) and the fee share (40) went back; the platform advanced
  // the rest (1 010), which the owner still owes.
  expect(await ledgerOf(owner.creds.merchantId)).toEqual({ available: 0, blocked: 0, reserved: 0, owed: -1_010 });
  expect(await ledgerOf(partner.creds.merchantId)).toEqual({ available: 0, blocked: 0, reserved: 0, owed: 0 });
  const [shares] = await stack.sequelize.query<{ shares: any; requested_by: string | null }>(
    `SELECT shares, requested_by FROM refunds WHERE id = :id`,
    { replacements: { id: done.refundId }, type: QueryTypes.SELECT },
  );
  expect(shares.shares).toEqual({
    ownerCents: 1_950,
    feeCents: 40,
    splits: [{ merchantId: partner.creds.merchantId, amountCents: 1_000 }],
    advancedCents: 1_010,
  });
  expect(await movementCount(`refund-complete:${done.refundId}`)).toBe(1);
  const [{ n }] = await stack.sequelize.query<{ n: string }>(
    `SELECT count(*) AS n FROM refunds WHERE med_infraction_id = :id`,
    { replacements: { id }, type: QueryTypes.SELECT },
  );
  expect(n).toBe('1');
  const timeline = await owner.shop.client.call('GET', `/med/infractions/${id}/timeline`);
  expect(timeline.body.steps.map((x: any) => x.step)).toEqual([
    'OPENED',
    'BLOCKED',
    'DECIDED',
    'IN_DEFENCE',
    'PSP_DECIDED',
    'DEVOLUCAO',
  ]);
  await assertLedgerInvariant(stack.sequelize);
});

it('MED 2.0 cancelled by the PSP while open: everything released and the debt cancelled, never answered; the sandbox shows CANCELLED', async () => {
  const owner = await platformMerchant('Loja MED 2 cancelada');
  const receiver = await startReceiver();
  receivers.push(receiver);
  const chargeId = await sellerCharge(owner.creds, { amountCents: 2_000 });
  await withdrawn(owner.creds, 1_000);
  const opened = await openAndSync(owner.shop, chargeId, 2_000);
  const { id } = opened;
  // Net 1 980, 1 000 withdrawn: 980 blocked, 1 000 owed (the fee share is the platform's).
  expect(await ledgerOf(owner.creds.merchantId)).toEqual({ available: 0, blocked: 980, reserved: 0, owed: -1_000 });

  const cancelled = await pspDecides(owner.shop, opened, 'CANCELLED', 'CANCELLED');
  expect(cancelled).toMatchObject({ pspOutcome: 'CANCELLED', decision: null, refundId: null });
  expect(await ledgerOf(owner.creds.merchantId)).toEqual({ available: 980, blocked: 0, reserved: 0, owed: 0 });
  expect(await movementCount(`med-unblock:${id}`)).toBe(1);
  expect(await movementCount(`med-debt-cancel:${id}:${owner.creds.merchantId}`)).toBe(1);
  expect(
    (await sandbox('GET', '/sandbox/infractions')).body.infractions.find((i: any) => i.id === opened.providerId),
  ).toMatchObject({ status: 'CANCELLED', decision: null, justification: null });
  // Over: no answer is taken any more.
  const late = await owner.shop.client.call('POST', `/med/infractions/${id}/analysis`, {
    body: { decision: 'REJECT', justification: 'tarde' },
  });
  expect(late.status).toBe(409);
  expect(late.body.error.code).toBe('INFRACTION_ALREADY_DECIDED');
  const timeline = await owner.shop.client.call('GET', `/med/infractions/${id}/timeline`);
  expect(timeline.body.steps).toEqual([
    expect.objectContaining({ step: 'OPENED' }),
    expect.objectContaining({ step: 'BLOCKED' }),
    expect.objectContaining({ step: 'PSP_DECIDED', outcome: 'CANCELLED' }),
  ]);
  const [event] = await stack.sequelize.query<{ n: string }>(
    `SELECT count(*) AS n FROM outbox_events WHERE type = 'med.infraction.cancelled' AND aggregate_id = :id`,
    { replacements: { id }, type: QueryTypes.SELECT },
  );
  expect(event.n).toBe('1');
  await assertLedgerInvariant(stack.sequelize);
});

// --- issue 38: the defence (text and evidence files) and the case's timeline ----------------

const PDF = Buffer.from(
  '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj << /Type /Catalog >> endobj\ntrailer << >>\n%%EOF\n',
  'latin1',
);

async function evidenceGrant(s: Shop, id: string, contentType: string) {
  const res = await s.client.call('POST', `/med/infractions/${id}/evidence`, { body: { contentType } });
  expect(res.status).toBe(201);
  expect(res.body.key).toMatch(new RegExp(`^med-evidence/${id}/[0-9a-f-]{36}$`));
  return res.body as { key: string; uploadUrl: string; headers: Record<string, string>; maxBytes: number };
}

async function put(grant: { uploadUrl: string; headers: Record<string, string> }, body: Buffer) {
  const res = await fetch(grant.uploadUrl, { method: 'PUT', headers: grant.headers, body });
  await res.arrayBuffer();
  return res.status;
}

const defenceRows = async (id: string) =>
  (
    await stack.sequelize.query<{ n: string }>(
      `SELECT (SELECT count(*) FROM med_infraction_defences WHERE infraction_id = :id)
            + (SELECT count(*) FROM med_infraction_evidence WHERE infraction_id = :id) AS n`,
      { replacements: { id }, type: QueryTypes.SELECT },
    )
  )[0].n;

it('defence: evidence checked by its bytes (a text file named as a PNG and an oversize upload refused, nothing stored), another merchant 404; the text reaches the PSP, the PDF is kept; the timeline shows every step', async () => {
  const s = await shop();
  const charge = await paidCharge(s, 1_500);
  // Read with 5 h left: the 6 h alert goes at once, and the answer for the merchant is hours away.
  const { id, providerId } = await openAndSync(s, charge.id, 600, 5 * 3_600);
  expect(await blocked(s.merchantId)).toBe(600);

  // A text file uploaded as image/png: the upload takes it, the defence reads its bytes and refuses it.
  const fake = await evidenceGrant(s, id, 'image/png');
  expect(await put(fake, Buffer.from('this is not an image, just text'))).toBe(200);
  const pdf = await evidenceGrant(s, id, 'application/pdf');
  expect(await put(pdf, PDF)).toBe(200);
  const refused = await s.client.call('POST', `/med/infractions/${id}/defence`, {
    body: { text: 'goods delivered on 2026-11-20, tracking BR123456789', evidenceKeys: [pdf.key, fake.key] },
  });
  expect(refused.status).toBe(400);
  expect(refused.body.error).toMatchObject({
    code: 'EVIDENCE_INVALID',
    message: expect.stringContaining('not a PDF, PNG or JPEG'),
    details: { key: fake.key },
  });
  // Larger than the limit: the upload itself is refused.
  const big = await evidenceGrant(s, id, 'application/pdf');
  expect(big.maxBytes).toBe(10_485_760);
  expect(await put(big, Buffer.concat([PDF, Buffer.alloc(big.maxBytes)]))).toBe(413);
  // A key of another infraction, or not a key at all: refused by the same envelope or by validation.
  const notUploaded = await s.client.call('POST', `/med/infractions/${id}/defence`, {
    body: { text: 'defence', evidenceKeys: [big.key] },
  });
  expect(notUploaded.status).toBe(400);
  expect(notUploaded.body.error.code).toBe('EVIDENCE_INVALID');
  const badKey = await s.client.call('POST', `/med/infractions/${id}/defence`, {
    body: { text: 'defence', evidenceKeys: ['avatars/x/y'] },
  });
  expect(badKey.status).toBe(400);
  expect(badKey.body.error.code).toBe('VALIDATION_ERROR');
  // Nothing changed: still OPEN, still blocked, no defence stored, the PSP told nothing.
  expect(await defenceRows(id)).toBe('0');
  expect((await s.client.call('GET', `/med/infractions/${id}`)).body).toMatchObject({ status: 'OPEN' });
  expect(await blocked(s.merchantId)).toBe(600);
  expect(
    (await sandbox('GET', '/sandbox/infractions')).body.infractions.find((i: any) => i.id === providerId),
  ).toMatchObject({ status: 'OPEN', justification: null });

  // Another merchant: 404 on the defence, the evidence and the timeline, and nothing changes.
  const b = await shop();
  for (const [method, path, body] of [
    ['POST', `/med/infractions/${id}/evidence`, { contentType: 'application/pdf' }],
    ['POST', `/med/infractions/${id}/defence`, { text: 'not mine', evidenceKeys: [pdf.key] }],
    ['GET', `/med/infractions/${id}/timeline`, undefined],
  ] as const) {
    const res = await b.client.call(method, path, body ? { body } : {});
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('INFRACTION_NOT_FOUND');
  }
  expect(await defenceRows(id)).toBe('0');

  // The case was read with less than 6 h left: its 6 h alert goes at once. Wait for it, so the
  // timeline's order below does not depend on which of the alert and the defence came first.
  await waitFor(async () => {
    const [{ n }] = await stack.sequelize.query<{ n: string }>(
      `SELECT count(*) AS n FROM med_infraction_alerts WHERE infraction_id = :id`,
      { replacements: { id }, type: QueryTypes.SELECT },
    );
    return n === '1' || undefined;
  }, 'the 6 h alert recorded');

  const text = 'goods delivered on 2026-11-20, tracking BR123456789';
  const sent = await s.client.call('POST', `/med/infractions/${id}/defence`, {
    body: { text, evidenceKeys: [pdf.key] },
  });
  expect(sent.status).toBe(200);
  expect(sent.body.infraction).toMatchObject({ id, status: 'IN_DEFENCE', decision: 'REJECT', justification: text });
  expect(sent.body.defence).toMatchObject({
    text,
    evidence: [{ id: expect.any(String), contentType: 'application/pdf', sizeBytes: PDF.length }],
  });
  // The PSP got the text (Efí takes text only) and analyses it; the block stays meanwhile.
  expect(
    (await sandbox('GET', '/sandbox/infractions')).body.infractions.find((i: any) => i.id === providerId),
  ).toMatchObject({ status: 'IN_DEFENCE', justification: text });
  expect(await blocked(s.merchantId)).toBe(600);
  // The evidence is kept in the store, and never served to whoever learns its key.
  const [stored] = await stack.sequelize.query<{ object_key: string }>(
    `SELECT object_key FROM med_infraction_evidence WHERE infraction_id = :id`,
    { replacements: { id }, type: QueryTypes.SELECT },
  );
  expect(stored.object_key).toBe(pdf.key);
  expect((await fetch(pdf.uploadUrl.split('?')[0])).status).toBe(404);

  // Decided: a second defence is refused.
  const again = await s.client.call('POST', `/med/infractions/${id}/defence`, { body: { text: 'again' } });
  expect(again.status).toBe(409);
  expect(again.body.error.code).toBe('INFRACTION_ALREADY_DECIDED');

  const defended = await s.client.call('GET', `/med/infractions/${id}/timeline`);
  expect(defended.status).toBe(200);
  expect(defended.body).toMatchObject({ infractionId: id, status: 'IN_DEFENCE', defence: { text } });
  expect(defended.body.steps.map((x: any) => x.step)).toEqual([
    'OPENED',
    'BLOCKED',
    'ALERT_SENT',
    'DEFENCE_SUBMITTED',
    'DECIDED',
    'IN_DEFENCE',
  ]);
  // The PSP dismisses the claim: released, and the timeline shows its decision.
  await pspDecides(s, { id, providerId }, 'DISMISSED', 'REJECTED');
  expect(await blocked(s.merchantId)).toBe(0);
  const timeline = await s.client.call('GET', `/med/infractions/${id}/timeline`);
  expect(timeline.body).toMatchObject({ infractionId: id, status: 'REJECTED', defence: { text } });
  // Read with 5 h left: the 6 h alert only, at once (48 and 24 h skipped).
  expect(timeline.body.steps).toEqual([
    expect.objectContaining({ step: 'OPENED' }),
    expect.objectContaining({ step: 'BLOCKED', amountCents: 600 }),
    expect.objectContaining({ step: 'ALERT_SENT', hoursLeft: 6 }),
    expect.objectContaining({ step: 'DEFENCE_SUBMITTED', evidenceFiles: 1 }),
    expect.objectContaining({ step: 'DECIDED', decision: 'REJECT', decidedBy: expect.any(String) }),
    expect.objectContaining({ step: 'IN_DEFENCE' }),
    expect.objectContaining({ step: 'PSP_DECIDED', outcome: 'DISMISSED' }),
  ]);
  const events = await eventsReceived(s.receiver, id, [
    'med.infraction.deadline_approaching',
    'med.infraction.rejected',
  ]);
  expect(events.find((e: any) => e.type === 'med.infraction.deadline_approaching').data).toMatchObject({
    id,
    hoursLeft: 6,
  });
});

it('timeline of a case answered for the merchant at the deadline: opened, blocked, the alert, decided by DEFAULT, the devolução', async () => {
  const s = await shop();
  const charge = await paidCharge(s, 1_000);
  const { id } = await openAndSync(s, charge.id, 400, DEADLINE_MS / 1000);
  await waitFor(
    async () => (await s.client.call('GET', `/med/infractions/${id}`)).body.refundStatus === 'SUCCEEDED',
    'default decision and devolução',
    DEADLINE_MS + 40_000,
  );
  const timeline = await s.client.call('GET', `/med/infractions/${id}/timeline`);
  expect(timeline.body.defence).toBeNull();
  expect(timeline.body.steps).toEqual([
    expect.objectContaining({ step: 'OPENED' }),
    expect.objectContaining({ step: 'BLOCKED', amountCents: 400 }),
    expect.objectContaining({ step: 'ALERT_SENT', hoursLeft: 6 }),
    expect.objectContaining({ step: 'DECIDED', decision: 'ACCEPT', decidedBy: 'DEFAULT' }),
    expect.objectContaining({ step: 'DEVOLUCAO', amountCents: 400, status: 'SUCCEEDED' }),
  ]);
  // An alert mail to the owner was queued with the alert.
  const [mail] = await stack.sequelize.query<{ subject: string }>(
    `SELECT subject FROM outgoing_mails WHERE subject LIKE :s`,
    { replacements: { s: `%${id}%` }, type: QueryTypes.SELECT },
  );
  expect(mail.subject).toBe(`MED: 6 h left to answer the Pix infraction ${id}`);
});

// Last: every event this file's flows recorded (and any other on this stack) against the API document.
it('records only events whose body matches the payload schema the API document gives their type', async () => {
  const { types, mismatches } = await checkRecordedEvents(stack.sequelize);
  expect(mismatches).toEqual([]);
  expect(types).toEqual(expect.arrayContaining(['med.infraction.opened', 'med.infraction.deadline_approaching']));
});
