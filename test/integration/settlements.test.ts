/**
 * Settlements over HTTP against the real stack: a merchant's available balance
 * sent to its own Pix key, on demand (POST /settlements) and by its Temporal Schedule, through
 * the withdrawal machinery. Asserts HTTP bodies, the settlement and withdrawal rows, ledger
 * postings and the sandbox's own transfer records; the ledger invariant after every scenario.
 */
import crypto from 'node:crypto';
import { authenticator } from 'otplib';
import { QueryTypes } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { setMerchantPixKey, setWithdrawalsFrozen } from '../../db/identity/merchantAdmin';
import { MerchantMember } from '../../db/models';
import { settlementScheduleId } from '../../api/settlements/schedule';
import type { ScheduledSettlementResult } from '../../workflows/settlements/types';
import { waitFor } from '../support/env';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { signedInMerchant, signedInUser, type SignedInMerchant } from '../support/signedIn';
import { sandboxTransferList, sandboxTransfers } from '../support/payouts';
import { idEnvioFor, pspChargeRef } from '../../core/pix/apiPixIds';

jest.setTimeout(180_000);

let stack: SharedStack;
const FEE = 150;

beforeAll(async () => {
  stack = await sharedIntegrationStack();
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(async () => {
  await fetch(`${stack.sandboxUrl}/sandbox/faults`, { method: 'DELETE' });
  await assertLedgerInvariant(stack.sequelize);
});

const key = () => ({ 'x-idempotency-key': `settle-${crypto.randomUUID()}` });

type Owner = SignedInMerchant;

/** A signed-in owner of a new merchant with a Pix key (unless `pixKey: null`) and the withdrawal fee FEE. */
async function owner(opts: { pixKey?: string | null } = {}): Promise<Owner> {
  const o = await signedInMerchant(stack, { emailPrefix: 'settle', name: 'Loja Repasse' });
  const merchantId = o.merchantId;
  const pixKey = opts.pixKey === undefined ? `repasse+${crypto.randomUUID().slice(0, 8)}@loja.com.br` : opts.pixKey;
  if (pixKey) await setMerchantPixKey(stack.sequelize, merchantId, { key: pixKey, type: 'EMAIL' });
  await stack.sequelize.query(`UPDATE merchants SET withdrawal_fee_cents = :fee WHERE id = :id`, {
    replacements: { fee: FEE, id: merchantId },
  });
  return o;
}

/** Pays a Pix charge of `amountCents` through the API and the sandbox; answers the available balance after it. */
async function fund(o: Owner, amountCents: number): Promise<number> {
  const created = await o.client.call('POST', '/charges', {
    body: { merchantId: o.merchantId, amountCents },
    headers: key(),
  });
  expect(created.status).toBe(201);
  const paid = await fetch(`${stack.sandboxUrl}/sandbox/charges/${pspChargeRef(created.body.id)}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(paid.status).toBe(200);
  await waitFor(
    async () => (await o.client.call('GET', `/charges/${created.body.id}`)).body.status === 'PAID',
    'charge PAID',
  );
  return available(o);
}

const available = (o: Owner) => balance(stack.sequelize, accounts.merchantAvailable(o.merchantId));
const reserved = (o: Owner) => balance(stack.sequelize, accounts.merchantReserved(o.merchantId));

function settle(o: Owner, body: Record<string, unknown>, headers: Record<string, string> = key()) {
  return o.client.call('POST', '/settlements', { body: { merchantId: o.merchantId, ...body }, headers });
}

async function finished(o: Owner, id: string) {
  return waitFor(async () => {
    const res = await o.client.call('GET', `/settlements/${id}`);
    return res.body?.status && res.body.status !== 'PROCESSING' ? res.body : undefined;
  }, `settlement ${id} finished`);
}

async function postingsOf(movementKey: string): Promise<Record<string, number>> {
  const rows = await stack.sequelize.query<{ code: string; amount: string }>(
    `SELECT a.code, p.amount_cents AS amount FROM ledger_postings p
     JOIN ledger_accounts a ON a.id = p.account_id JOIN ledger_transactions t ON t.id = p.transaction_id
     WHERE t.movement_key = :movementKey`,
    { replacements: { movementKey }, type: QueryTypes.SELECT },
  );
  return Object.fromEntries(rows.map((r) => [r.code, Number(r.amount)]));
}

async function countRows(table: 'settlements' | 'withdrawals', merchantId: string): Promise<number> {
  const [row] = await stack.sequelize.query<{ n: string }>(
    `SELECT count(*) AS n FROM ${table} WHERE merchant_id = :merchantId`,
    { replacements: { merchantId }, type: QueryTypes.SELECT },
  );
  return Number(row.n);
}

const faults = (body: Record<string, unknown>) =>
  fetch(`${stack.sandboxUrl}/sandbox/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('on demand', () => {
  it('settles an amount: 201 once reserved, COMPLETED through the provider, ledger moved once, idempotent replay', async () => {
    const o = await owner();
    const net = await fund(o, 100_000);
    const headers = key();
    const res = await settle(o, { amountCents: 40_000 }, headers);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      merchantId: o.merchantId,
      trigger: 'ON_DEMAND',
      amountCents: 40_000,
      feeCents: FEE,
      totalDebitedCents: 40_150,
      scheduleFrequency: null,
    });
    expect(res.body.destination).toMatchObject({
      type: 'PIX',
      pixKeyType: 'EMAIL',
      pixKeyMasked: expect.stringMatching(/^re\*+@loja\.com\.br$/),
    });
    expect(['PROCESSING', 'COMPLETED']).toContain(res.body.status);
    // The 201 comes after the reservation.
    expect(await available(o)).toBe(net - 40_150);

    const done = await finished(o, res.body.id);
    expect(done).toMatchObject({ status: 'COMPLETED', failure: null, processedAt: expect.any(String) });
    expect(done.providerTransferId).toMatch(/^ptr_[0-9a-f]{24}$/);
    expect(done.endToEndId).toMatch(/^E\d{8}\d{12}[A-Za-z0-9]{11}$/);
    // Never the supplier's ids or a raw payload.
    expect(JSON.stringify(done)).not.toMatch(/sandbox|sbx|secret|token/i);
    const seller = await stack.sequelize.query<{ provider_transfer_id: string }>(
      `SELECT provider_transfer_id FROM withdrawals WHERE id = :id`,
      { replacements: { id: done.withdrawalId }, type: QueryTypes.SELECT },
    );
    // Our row names the send by its idEnvio; the sandbox records it as a transfer with that reference.
    expect(seller[0].provider_transfer_id).toBe(idEnvioFor(done.withdrawalId));
    const atSandbox = (await sandboxTransferList(stack)).filter((t) => t.reference === done.withdrawalId);
    expect(atSandbox).toEqual([
      expect.objectContaining({ status: 'COMPLETED', amountCents: 40_000, endToEndId: done.endToEndId }),
    ]);
    expect(await available(o)).toBe(net - 40_150);
    expect(await reserved(o)).toBe(0);
    expect(await postingsOf(`withdrawal-complete:${done.withdrawalId}`)).toEqual({
      [accounts.merchantReserved(o.merchantId)]: -40_150,
      [accounts.providerClearing]: 40_000,
      [accounts.platformFees]: FEE,
    });
    expect((await sandboxTransfers(stack))[done.withdrawalId]?.created).toBe(1);

    // Same key, same body: the same settlement, nothing new. Another body: 409.
    const replay = await settle(o, { amountCents: 40_000 }, headers);
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(res.body.id);
    const other = await settle(o, { amountCents: 1_000 }, headers);
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('DUPLICATE_IDEMPOTENCY_KEY');
    expect(await countRows('settlements', o.merchantId)).toBe(1);
    expect(await available(o)).toBe(net - 40_150);

    const list = await o.client.call('GET', `/settlements?merchantId=${o.merchantId}&status=COMPLETED`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({
      data: [expect.objectContaining({ id: res.body.id, status: 'COMPLETED' })],
      pagination: { total: 1, limit: 20, offset: 0, hasMore: false },
    });
    const none = await o.client.call('GET', `/settlements?merchantId=${o.merchantId}&status=FAILED`);
    expect(none.body).toMatchObject({ data: [], pagination: { total: 0 } });
    // The money left as a withdrawal: its row is the settlement's state.
    const [w] = await stack.sequelize.query<{ status: string; user_id: string }>(
      `SELECT status, user_id FROM withdrawals WHERE id = :id`,
      { replacements: { id: done.withdrawalId }, type: QueryTypes.SELECT },
    );
    expect(w).toEqual({ status: 'COMPLETED', user_id: o.userId });

    // The provider's statement agrees: the funding payment and the settlement's transfer match.
    const today = new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);
    const started = await o.client.call('POST', '/reconciliations', {
      body: { merchantId: o.merchantId, from: today, to: today },
    });
    expect(started.status).toBe(202);
    const report = await waitFor(async () => {
      const r = await o.client.call('GET', `/reconciliations/${started.body.id}`);
      return r.body.status !== 'RUNNING' ? r.body : undefined;
    }, 'reconciliation finished');
    expect(report).toMatchObject({
      status: 'COMPLETED',
      counts: { matched: 2, missingInLedger: 0, missingAtProvider: 0, amountMismatch: 0 },
      differences: [],
    });
  });

  it('without an amount settles everything available minus the fee; then nothing is left: 400, nothing stored', async () => {
    const o = await owner();
    const net = await fund(o, 20_000);
    const res = await settle(o, {});
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ amountCents: net - FEE, feeCents: FEE, totalDebitedCents: net });
    const done = await finished(o, res.body.id);
    expect(done.status).toBe('COMPLETED');
    expect(await available(o)).toBe(0);
    const again = await settle(o, {});
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('INSUFFICIENT_AVAILABLE_BALANCE');
    expect(await countRows('settlements', o.merchantId)).toBe(1);
    expect(await countRows('withdrawals', o.merchantId)).toBe(1);
  });

  it('two "all available" requests at once: one settles everything, the other is refused; never overdrawn', async () => {
    const o = await owner();
    const net = await fund(o, 30_000);
    const answers = await Promise.all([settle(o, {}), settle(o, {})]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, 400]);
    const ok = answers.find((a) => a.status === 201)!;
    expect(ok.body.amountCents).toBe(net - FEE);
    expect(answers.find((a) => a.status === 400)!.body.error.code).toBe('INSUFFICIENT_AVAILABLE_BALANCE');
    expect((await finished(o, ok.body.id)).status).toBe('COMPLETED');
    expect(await available(o)).toBe(0);
    expect(await countRows('withdrawals', o.merchantId)).toBe(1);
  });

  it('a viewer of the merchant may not settle or read settlements (403), and nothing is stored', async () => {
    const o = await owner();
    await fund(o, 10_000);
    const { client: viewer, userId: viewerId } = await signedInUser(stack, { emailPrefix: 'settle-viewer' });
    await MerchantMember.create({ userId: viewerId, merchantId: o.merchantId, role: 'viewer' });
    const post = await viewer.call('POST', '/settlements', { body: { merchantId: o.merchantId }, headers: key() });
    expect(post.status).toBe(403);
    expect(post.body.error.code).toBe('INSUFFICIENT_ROLE');
    expect((await viewer.call('GET', `/settlements?merchantId=${o.merchantId}`)).status).toBe(403);
    expect(
      (
        await viewer.call('PUT', '/settlements/schedule', {
          body: { merchantId: o.merchantId, frequency: 'D0', minimumAmountCents: 0 },
        })
      ).status,
    ).toBe(403);
    expect(await countRows('withdrawals', o.merchantId)).toBe(0);
  });

  it('refusals store nothing: more than available, no Pix key, frozen, missing key header, bad body', async () => {
    const o = await owner();
    const net = await fund(o, 10_000);
    const tooMuch = await settle(o, { amountCents: net });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.error).toMatchObject({
      code: 'INSUFFICIENT_AVAILABLE_BALANCE',
      details: { requiredCents: net + FEE, availableCents: net },
    });
    const noKey = await o.client.call('POST', '/settlements', { body: { merchantId: o.merchantId, amountCents: 100 } });
    expect(noKey.status).toBe(400);
    expect(noKey.body.error.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
    for (const body of [
      { amountCents: 0 },
      { amountCents: -5 },
      { amountCents: 1.5 },
      { amountCents: '100' },
      { amountCents: 100, extra: 1 },
    ]) {
      const bad = await settle(o, body);
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    }
    const keyless = await owner({ pixKey: null });
    await fund(keyless, 10_000);
    const refused = await settle(keyless, {});
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: { reason: 'PIX_KEY_NOT_REGISTERED' },
    });
    await setWithdrawalsFrozen(stack.sequelize, o.merchantId, true);
    const frozen = await settle(o, { amountCents: 100 });
    expect(frozen.status).toBe(409);
    expect(frozen.body.error.code).toBe('WITHDRAWAL_FROZEN');
    await setWithdrawalsFrozen(stack.sequelize, o.merchantId, false);
    expect(await countRows('settlements', o.merchantId)).toBe(0);
    expect(await countRows('withdrawals', o.merchantId)).toBe(0);
    expect(await countRows('withdrawals', keyless.merchantId)).toBe(0);
    expect(await available(o)).toBe(net);
  });

  it('the provider failing then recovering: one transfer, COMPLETED, money out once', async () => {
    const o = await owner();
    const net = await fund(o, 50_000);
    await faults({ failFirst: 2 });
    const res = await settle(o, { amountCents: 30_000 });
    expect(res.status).toBe(201);
    const done = await finished(o, res.body.id);
    expect(done.status).toBe('COMPLETED');
    expect((await sandboxTransfers(stack))[done.withdrawalId]?.created).toBe(1);
    expect(await available(o)).toBe(net - 30_150);
    expect(await reserved(o)).toBe(0);
    expect(await postingsOf(`withdrawal-release:${done.withdrawalId}`)).toEqual({});
  });

  it('a transfer the provider refuses: FAILED with a reason, the whole reserve returned', async () => {
    const o = await owner({ pixKey: 'invalid-key@loja.com.br' });
    const net = await fund(o, 10_000);
    const res = await settle(o, { amountCents: 5_000 });
    expect(res.status).toBe(201);
    const done = await finished(o, res.body.id);
    expect(done).toMatchObject({
      status: 'FAILED',
      failure: { code: expect.any(String), reason: expect.any(String) },
      endToEndId: null,
    });
    expect(await available(o)).toBe(net);
    expect(await reserved(o)).toBe(0);
  });

  it('needs an action token when the user has 2FA on; a replay does not ask again', async () => {
    const o = await owner();
    await fund(o, 10_000);
    const setup = await o.client.call('POST', '/auth/2fa/totp/setup');
    const secret: string = setup.body.secret;
    const code = (offset: number) =>
      authenticator.clone({ epoch: (Math.floor(Date.now() / 30_000) + offset) * 30_000 }).generate(secret);
    expect((await o.client.call('POST', '/auth/2fa/totp/confirm', { body: { code: code(0) } })).status).toBe(200);
    const headers = key();
    const without = await settle(o, { amountCents: 1_000 }, headers);
    expect(without.status).toBe(403);
    expect(without.body.error).toMatchObject({ code: 'SECOND_FACTOR_REQUIRED', details: { action: 'settlement' } });
    expect(await countRows('withdrawals', o.merchantId)).toBe(0);
    const start = await o.client.call('POST', '/auth/2fa/action/start', { body: { action: 'settlement' } });
    const confirm = await o.client.call('POST', '/auth/2fa/action/confirm', {
      body: { challengeId: start.body.challengeId, code: code(1) },
    });
    expect(confirm.status).toBe(200);
    const ok = await settle(o, { amountCents: 1_000 }, { ...headers, 'x-action-token': confirm.body.actionToken });
    expect(ok.status).toBe(201);
    const replay = await settle(o, { amountCents: 1_000 }, headers);
    expect(replay.status).toBe(201);
    expect(replay.body.id).toBe(ok.body.id);
    await finished(o, ok.body.id);
  });

  it("another merchant's settlement is 404; their merchant is 404", async () => {
    const a = await owner();
    await fund(a, 10_000);
    const res = await settle(a, { amountCents: 1_000 });
    const b = await owner();
    const read = await b.client.call('GET', `/settlements/${res.body.id}`);
    expect(read.status).toBe(404);
    expect(read.body.error.code).toBe('SETTLEMENT_NOT_FOUND');
    const list = await b.client.call('GET', `/settlements?merchantId=${a.merchantId}`);
    expect(list.status).toBe(404);
    const post = await b.client.call('POST', '/settlements', { body: { merchantId: a.merchantId }, headers: key() });
    expect(post.status).toBe(404);
    const sched = await b.client.call('GET', `/settlements/schedule?merchantId=${a.merchantId}`);
    expect(sched.status).toBe(404);
    expect((await b.client.call('GET', '/settlements')).body.data).toEqual([]);
    await finished(a, res.body.id);
    expect(await countRows('withdrawals', a.merchantId)).toBe(1);
  });
});

describe('by schedule', () => {
  async function fire(merchantId: string, previousRuns: number): Promise<ScheduledSettlementResult> {
    const handle = stack.temporal.schedule.getHandle(settlementScheduleId(merchantId));
    await handle.trigger();
    const workflowId = await waitFor(async () => {
      const recent = (await handle.describe()).info.recentActions;
      return recent.length > previousRuns ? recent[recent.length - 1].action.workflow.workflowId : undefined;
    }, 'the schedule to start a run');
    return stack.temporal.workflow.getHandle(workflowId).result();
  }

  it('PUT creates a Temporal Schedule; a run settles (D0) everything available once; a pause in Temporal shows in GET', async () => {
    const o = await owner();
    const net = await fund(o, 30_000);
    const put = await o.client.call('PUT', '/settlements/schedule', {
      body: { merchantId: o.merchantId, frequency: 'D0', minimumAmountCents: 1_000 },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      merchantId: o.merchantId,
      scheduleId: `settlement-${o.merchantId}`,
      frequency: 'D0',
      minimumAmountCents: 1_000,
      paused: false,
      timezone: 'America/Sao_Paulo',
      nextRunAt: expect.any(String),
    });
    const described = await stack.temporal.schedule.getHandle(settlementScheduleId(o.merchantId)).describe();
    expect(described.spec.calendars?.[0]).toMatchObject({ hour: [{ start: 23, end: 23, step: 1 }] });

    await faults({ failFirst: 2 });
    const result = await fire(o.merchantId, 0);
    expect(result).toMatchObject({ plan: { kind: 'SETTLE', amountCents: net - FEE }, status: 'COMPLETED' });
    const list = await o.client.call('GET', `/settlements?merchantId=${o.merchantId}`);
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({
      id: result.settlementId,
      trigger: 'SCHEDULED',
      scheduleFrequency: 'D0',
      requestedBy: null,
      status: 'COMPLETED',
      amountCents: net - FEE,
    });
    expect((await sandboxTransfers(stack))[list.body.data[0].withdrawalId]?.created).toBe(1);
    expect(await available(o)).toBe(0);

    // Nothing left: the next run skips and records nothing.
    const skipped = await fire(o.merchantId, 1);
    expect(skipped).toMatchObject({ plan: { kind: 'SKIP', reason: 'BELOW_MINIMUM' }, settlementId: null });
    expect(await countRows('settlements', o.merchantId)).toBe(1);

    await stack.temporal.schedule.getHandle(settlementScheduleId(o.merchantId)).pause('operator in the Web UI');
    expect((await o.client.call('GET', `/settlements/schedule?merchantId=${o.merchantId}`)).body).toMatchObject({
      paused: true,
      nextRunAt: null,
    });
    const resumed = await o.client.call('PUT', '/settlements/schedule', {
      body: { merchantId: o.merchantId, frequency: 'WEEKLY', minimumAmountCents: 0, paused: false },
    });
    expect(resumed.body).toMatchObject({ frequency: 'WEEKLY', paused: false });
    const del = await o.client.call('DELETE', `/settlements/schedule?merchantId=${o.merchantId}`);
    expect(del.status).toBe(204);
    expect((await o.client.call('GET', `/settlements/schedule?merchantId=${o.merchantId}`)).status).toBe(404);
    expect((await o.client.call('DELETE', `/settlements/schedule?merchantId=${o.merchantId}`)).status).toBe(404);
  });

  it('PUT answers the state it set, however quickly pauses and resumes follow each other (also from the Web UI)', async () => {
    const o = await owner();
    const put = (paused: boolean, frequency = 'D1') =>
      o.client.call('PUT', '/settlements/schedule', {
        body: { merchantId: o.merchantId, frequency, minimumAmountCents: 0, paused },
      });
    expect((await put(false)).body).toMatchObject({ paused: false, nextRunAt: expect.any(String) });
    const handle = stack.temporal.schedule.getHandle(settlementScheduleId(o.merchantId));
    for (let i = 0; i < 12; i++) {
      const paused = i % 2 === 0;
      // An operator sets the other state in the Web UI; GET says so; then PUT changes it back.
      if (paused) await handle.unpause('operator in the Web UI');
      else await handle.pause('operator in the Web UI');
      const read = await o.client.call('GET', `/settlements/schedule?merchantId=${o.merchantId}`);
      expect({ i, paused: read.body.paused }).toEqual({ i, paused: !paused });
      const answer = await put(paused, i % 4 < 2 ? 'D1' : 'WEEKLY');
      expect({ i, paused: answer.body.paused, noNextRun: answer.body.nextRunAt === null }).toEqual({
        i,
        paused,
        noNextRun: paused,
      });
    }
    expect((await o.client.call('DELETE', `/settlements/schedule?merchantId=${o.merchantId}`)).status).toBe(204);
  });

  it('a run below the minimum settles nothing; D1 settles only what was there at the end of yesterday', async () => {
    const o = await owner();
    await fund(o, 5_000);
    await o.client.call('PUT', '/settlements/schedule', {
      body: { merchantId: o.merchantId, frequency: 'D0', minimumAmountCents: 100_000 },
    });
    expect(await fire(o.merchantId, 0)).toMatchObject({
      plan: { kind: 'SKIP', reason: 'BELOW_MINIMUM' },
      settlementId: null,
    });
    // Every posting so far is from today: D1 has nothing from yesterday to settle.
    await o.client.call('PUT', '/settlements/schedule', {
      body: { merchantId: o.merchantId, frequency: 'D1', minimumAmountCents: 0 },
    });
    expect(await fire(o.merchantId, 1)).toMatchObject({
      plan: { kind: 'SKIP', reason: 'BELOW_MINIMUM', amountCents: 0 },
    });
    expect(await countRows('settlements', o.merchantId)).toBe(0);
    await o.client.call('DELETE', `/settlements/schedule?merchantId=${o.merchantId}`);
  });
});
