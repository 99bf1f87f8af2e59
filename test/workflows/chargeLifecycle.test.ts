/**
 * ChargeLifecycle on the Java time-skipping test server: a 30-minute expiry runs in seconds.
 * Activities are the real ones on the real test database; only the provider (outside the
 * system) is an in-memory fake.
 */
import crypto from 'node:crypto';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { QueryTypes } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { DEFAULT_PLATFORM_INSTITUTION_NAME } from '../../config';
import { presentChargeRow } from '../../db/charges';
import { Charge, OutboxEvent } from '../../db/models';
import {
  cancelChargeUpdate,
  chargeWorkflowId,
  issueChargeUpdate,
  paymentConfirmedSignal,
} from '../../workflows/charges/definitions';
import type { ChargeLifecycleInput } from '../../workflows/charges/types';
import { BusinessStatusKey } from '../../core/temporal/searchAttributes';
import { FakePixProvider } from '../support/fakePixProvider';
import { waitFor } from '../support/env';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { useWorkflowEnv } from '../support/workflowEnv';

jest.setTimeout(120_000);

const wf = useWorkflowEnv();
let merchantId: string;

beforeAll(async () => {
  ({ merchantId } = await createMerchantWithCredential(
    wf.sequelize,
    { name: 'Loja WF' },
    crypto.randomBytes(32).toString('hex'),
  ));
});

afterEach(async () => {
  await assertLedgerInvariant(wf.sequelize);
});

/** Expiry is set on the test server's clock, which runs ahead of real time once timers were skipped. */
async function input(overrides: Partial<ChargeLifecycleInput> = {}): Promise<ChargeLifecycleInput> {
  const serverNow = await wf.env.currentTimeMs();
  return {
    chargeId: crypto.randomUUID(),
    merchantId,
    amountCents: 10_000,
    feeCents: 100,
    description: 'teste',
    externalRef: null,
    metadata: null,
    splits: [],
    expiresAt: new Date(serverNow + 30 * 60_000).toISOString(),
    idempotencyKey: null,
    webhook: null,
    ...overrides,
  };
}

async function withWorker<T>(provider: FakePixProvider, fn: (taskQueue: string) => Promise<T>): Promise<T> {
  return wf.withWorker(wf.activities(provider), fn);
}

async function withActivities<T>(activities: object, fn: (taskQueue: string) => Promise<T>): Promise<T> {
  return wf.withWorker(activities, fn);
}

async function startAndIssue(taskQueue: string, args: ChargeLifecycleInput) {
  const handle = await wf.env.client.workflow.start('chargeLifecycle', {
    taskQueue,
    workflowId: chargeWorkflowId(args.chargeId),
    args: [args],
  });
  const issued = await handle.executeUpdate(issueChargeUpdate);
  return { handle, issued };
}

it('expires an unpaid charge when its 30-minute timer fires (in seconds of real time)', async () => {
  const provider = new FakePixProvider();
  const args = await input();
  const realStart = Date.now();
  const outcome = await withWorker(provider, async (tq) => {
    const { handle, issued } = await startAndIssue(tq, args);
    expect(issued.copyPaste).toContain('br.gov.bcb.pix');
    return handle.result();
  });
  expect(outcome.status).toBe('EXPIRED');
  // The timer was skipped, not waited: far less real time than the timer's own 30 minutes. A
  // tighter bound (it was 30 s) failed at 39.9 s on a machine at load average 27.
  expect(Date.now() - realStart).toBeLessThan(30 * 60_000);
  const row = await Charge.findByPk(args.chargeId);
  expect(row?.status).toBe('EXPIRED');
  expect(row?.expiredAt).not.toBeNull();
  expect(provider.closeCalls).toEqual([{ id: row!.providerChargeId, reason: 'EXPIRED' }]);
  const types = (await OutboxEvent.findAll({ where: { aggregateId: args.chargeId } })).map((e) => e.type).sort();
  expect(types).toEqual(['charge.created', 'charge.expired']);
});

it('settles a charge paid before expiry once, even when the payment signal is duplicated', async () => {
  const provider = new FakePixProvider();
  const args = await input({ amountCents: 20_000, feeCents: 200 });
  const before = await balance(wf.sequelize, accounts.merchantAvailable(merchantId));
  const outcome = await withWorker(provider, async (tq) => {
    const { handle, issued } = await startAndIssue(tq, args);
    const paid = provider.markPaid(issued.providerChargeId);
    const confirmation = {
      providerChargeId: paid.id,
      endToEndId: paid.endToEndId!,
      amountCents: paid.amountCents,
      paidAt: paid.paidAt!,
      payer: paid.payer,
    };
    await handle.signal(paymentConfirmedSignal, confirmation);
    await handle.signal(paymentConfirmedSignal, confirmation);
    return handle.result();
  });
  expect(outcome.status).toBe('PAID');
  expect(await balance(wf.sequelize, accounts.merchantAvailable(merchantId))).toBe(before + 19_800);
  const row = await Charge.findByPk(args.chargeId);
  expect(row).toMatchObject({ status: 'PAID', paidAfterExpiry: false });
  expect(row?.payerSnapshot).toMatchObject({ name: 'Pagador' });
  const [{ n }] = await wf.sequelize.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ledger_transactions WHERE reference_id = :id`,
    {
      replacements: { id: args.chargeId },
      type: 'SELECT' as never,
    },
  );
  expect(n).toBe(1);
});

it('settles as PAID when the provider reports a payment that raced the expiry timer', async () => {
  const provider = new FakePixProvider();
  provider.payOnClose = true;
  const args = await input();
  const outcome = await withWorker(provider, async (tq) => (await startAndIssue(tq, args)).handle.result());
  expect(outcome.status).toBe('PAID');
  expect((await Charge.findByPk(args.chargeId))?.status).toBe('PAID');
});

it('answers the issue update with ProviderUnavailable after retries during a provider outage, storing nothing', async () => {
  const provider = new FakePixProvider();
  provider.issueFailure = 'transient';
  const args = await input();
  const outcome = await withWorker(provider, async (tq) => {
    const handle = await wf.env.client.workflow.start('chargeLifecycle', {
      taskQueue: tq,
      workflowId: chargeWorkflowId(args.chargeId),
      args: [args],
    });
    const err = await handle.executeUpdate(issueChargeUpdate).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((err as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'ProviderUnavailable' });
    return handle.result();
  });
  expect(outcome.status).toBe('FAILED');
  expect(provider.issueAttempts).toBe(3);
  expect(await Charge.findByPk(args.chargeId)).toBeNull();
});

it('does not retry a permanent provider refusal', async () => {
  const provider = new FakePixProvider();
  provider.issueFailure = 'permanent';
  const args = await input();
  await withWorker(provider, async (tq) => {
    const handle = await wf.env.client.workflow.start('chargeLifecycle', {
      taskQueue: tq,
      workflowId: chargeWorkflowId(args.chargeId),
      args: [args],
    });
    const err = await handle.executeUpdate(issueChargeUpdate).catch((e: unknown) => e);
    expect((err as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'ProviderRejected' });
    await handle.result();
  });
  expect(provider.issueAttempts).toBe(1);
});

it('cancels a pending charge through the cancel update, and refuses to cancel it twice', async () => {
  const provider = new FakePixProvider();
  const args = await input();
  await withWorker(provider, async (tq) => {
    const { handle } = await startAndIssue(tq, args);
    expect(await handle.executeUpdate(cancelChargeUpdate, { args: [{ reason: 'customer gave up' }] })).toBe(
      'CANCELLED',
    );
    const again = await handle
      .executeUpdate(cancelChargeUpdate, { args: [{ reason: 'again' }] })
      .catch((e: unknown) => e);
    // The workflow closed after the cancel: a second cancel finds nothing to cancel.
    expect(again).toBeInstanceOf(WorkflowNotFoundError);
    await handle.result();
  });
  expect((await Charge.findByPk(args.chargeId))?.status).toBe('CANCELLED');
  expect(provider.closeCalls.map((c) => c.reason)).toEqual(['CANCELLED']);
});

// ---- Settlement asks the provider, races with expiry, durable give-ups, a paid amount that differs ----

async function ledgerTransactions(chargeId: string): Promise<number> {
  const [{ n }] = await wf.sequelize.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ledger_transactions WHERE reference_id = :id`,
    {
      replacements: { id: chargeId },
      type: 'SELECT' as never,
    },
  );
  return n;
}

async function alerts(chargeId: string): Promise<{ kind: string; end_to_end_id: string | null }[]> {
  return wf.sequelize.query<{ kind: string; end_to_end_id: string | null }>(
    `SELECT kind, end_to_end_id FROM payment_alerts WHERE charge_id = :id ORDER BY id`,
    {
      replacements: { id: chargeId },
      type: QueryTypes.SELECT,
    },
  );
}

async function eventTypes(chargeId: string): Promise<string[]> {
  return (await OutboxEvent.findAll({ where: { aggregateId: chargeId }, order: [['createdAt', 'ASC']] })).map(
    (e) => e.type,
  );
}

const forgedConfirmation = (providerChargeId: string, amountCents: number) => ({
  providerChargeId,
  endToEndId: 'E00000000202601010000FORGED00001',
  amountCents,
  paidAt: '2026-01-01T00:00:00Z',
  payer: null,
});

it('credits nothing for a forged paymentConfirmed signal: the provider says the charge is unpaid', async () => {
  const provider = new FakePixProvider();
  const args = await input({ amountCents: 7_000, feeCents: 70 });
  const before = await balance(wf.sequelize, accounts.merchantAvailable(merchantId));
  const outcome = await withWorker(provider, async (tq) => {
    const { handle, issued } = await startAndIssue(tq, args);
    await handle.signal(paymentConfirmedSignal, forgedConfirmation(issued.providerChargeId, 7_000));
    // Wait until settlement has looked at the claim (it records an alert, or wrongly credits).
    await waitFor(
      async () => (await alerts(args.chargeId)).length > 0 || (await Charge.findByPk(args.chargeId))?.status === 'PAID',
      'the forged claim to be handled',
    );
    expect((await Charge.findByPk(args.chargeId))?.status).toBe('PENDING');
    return handle.result();
  });
  // The lifecycle kept running and expired the charge normally.
  expect(outcome.status).toBe('EXPIRED');
  expect(await ledgerTransactions(args.chargeId)).toBe(0);
  expect(await balance(wf.sequelize, accounts.merchantAvailable(merchantId))).toBe(before);
  expect(await alerts(args.chargeId)).toEqual([
    { kind: 'NOT_CONFIRMED', end_to_end_id: 'E00000000202601010000FORGED00001' },
  ]);
  expect(await eventTypes(args.chargeId)).toEqual(['charge.created', 'charge.expired']);
});

it('settles from the provider answer, not from the signal: payer and endToEndId are the provider ones', async () => {
  const provider = new FakePixProvider();
  const args = await input({ amountCents: 5_000, feeCents: 50 });
  const outcome = await withWorker(provider, async (tq) => {
    const { handle, issued } = await startAndIssue(tq, args);
    const paid = provider.markPaid(issued.providerChargeId);
    // A confirmation whose details differ from what the provider says: the provider wins.
    await handle.signal(paymentConfirmedSignal, { ...forgedConfirmation(issued.providerChargeId, 5_000), payer: null });
    expect(paid.endToEndId).not.toBe('E00000000202601010000FORGED00001');
    return handle.result();
  });
  expect(outcome.status).toBe('PAID');
  const row = await Charge.findByPk(args.chargeId);
  expect(row?.endToEndId).toBe(provider.charges.get(row!.providerChargeId!)!.endToEndId);
  expect(row?.payerSnapshot).toMatchObject({ name: 'Pagador' });
  expect(await ledgerTransactions(args.chargeId)).toBe(1);
});

/** A provider whose close is slow and answers EXPIRED although the charge was paid meanwhile (SPI settled it). */
class SlowClosePaidProvider extends FakePixProvider {
  override async closeCharge(id: string, reason: 'EXPIRED' | 'CANCELLED') {
    this.closeCalls.push({ id, reason });
    await new Promise((r) => setTimeout(r, 2_000));
    const stale = { ...(await this.getCharge(id)), status: 'EXPIRED' as const };
    this.markPaid(id);
    return stale;
  }
}

it('credits once a payment signalled while the provider close is in flight, flagged paidAfterExpiry', async () => {
  const provider = new SlowClosePaidProvider();
  const args = await input({ amountCents: 9_000, feeCents: 90 });
  const before = await balance(wf.sequelize, accounts.merchantAvailable(merchantId));
  const outcome = await withWorker(provider, async (tq) => {
    const { handle, issued } = await startAndIssue(tq, args);
    const result = handle.result();
    await waitFor(async () => provider.closeCalls.length > 0, 'the expiry close to start');
    await new Promise((r) => setTimeout(r, 300));
    await handle.signal(paymentConfirmedSignal, forgedConfirmation(issued.providerChargeId, 9_000));
    return result;
  });
  expect(outcome.status).toBe('PAID');
  const row = await Charge.findByPk(args.chargeId);
  expect(row).toMatchObject({ status: 'PAID', paidAfterExpiry: true });
  expect(await ledgerTransactions(args.chargeId)).toBe(1);
  expect(await balance(wf.sequelize, accounts.merchantAvailable(merchantId))).toBe(before + 8_910);
  expect(await eventTypes(args.chargeId)).toEqual(['charge.created', 'charge.expired', 'charge.paid']);
});

it('recordIssuedCharge presents splits and webhook in charge.created as they read back, and a rerun after its commit changes nothing', async () => {
  const provider = new FakePixProvider();
  const activities = wf.activities(provider);
  const { other, args } = await splitChargeInput('Loja Parceira', {
    amountCents: 5_000,
    share: 1_234,
    percentage: 24.68,
    url: 'https://loja.example/pix-events',
    events: ['charge.created', 'charge.paid'],
  });
  const providerCharge = await activities.issuePixAtProvider(args);
  const issued = await activities.recordIssuedCharge({ input: args, providerCharge });
  // A retry of a record step whose commit answered too late: the same charge, nothing written twice.
  expect(await activities.recordIssuedCharge({ input: args, providerCharge })).toEqual(issued);
  expect(await eventTypes(args.chargeId)).toEqual(['charge.created']);
  const [event] = await OutboxEvent.findAll({ where: { aggregateId: args.chargeId } });
  const stored = await Charge.findByPk(args.chargeId);
  const readBack = await presentChargeRow(stored!, DEFAULT_PLATFORM_INSTITUTION_NAME);
  expect(event.payload).toEqual(JSON.parse(JSON.stringify(readBack)));
  expect(readBack).toMatchObject({
    splits: [{ merchantId: other, amountCents: 1_234, percentage: 24.68 }],
    webhook: { id: args.webhook!.id, url: args.webhook!.url, events: args.webhook!.events, secret: null },
  });
});

it('issueAndRecordPix stores and presents the charge as the two steps do, and a rerun changes nothing', async () => {
  const provider = new FakePixProvider();
  const activities = wf.activities(provider);
  const args = await input({ amountCents: 6_000, feeCents: 60, metadata: { pedido: '42' } });
  const issued = await activities.issueAndRecordPix(args);
  expect(await activities.issueAndRecordPix(args)).toEqual(issued);
  expect(await eventTypes(args.chargeId)).toEqual(['charge.created']);
  const [event] = await OutboxEvent.findAll({ where: { aggregateId: args.chargeId } });
  const stored = await Charge.findByPk(args.chargeId);
  expect(stored).toMatchObject({
    status: 'PENDING',
    providerChargeId: issued.providerChargeId,
    pixTxid: issued.pixTxid,
  });
  expect(event.payload).toEqual(
    JSON.parse(JSON.stringify(await presentChargeRow(stored!, DEFAULT_PLATFORM_INSTITUTION_NAME))),
  );
  expect(event.payload).toMatchObject({ beneficiary: { id: merchantId, name: 'Loja WF' }, splits: [], webhook: null });
});

it('settleChargePaid called twice in parallel writes one ledger transaction', async () => {
  const provider = new FakePixProvider();
  const activities = wf.activities(provider);
  const args = await input({ amountCents: 4_000, feeCents: 40 });
  const confirmation = await issuedAndPaidAtProvider(provider, activities, args);
  await Promise.all([
    activities.settleChargePaid({ chargeId: args.chargeId, payment: confirmation }),
    activities.settleChargePaid({ chargeId: args.chargeId, payment: confirmation }),
    activities.settleChargePaid({ chargeId: args.chargeId, payment: confirmation }),
  ]);
  expect(await ledgerTransactions(args.chargeId)).toBe(1);
  expect((await Charge.findByPk(args.chargeId))?.status).toBe('PAID');
});

it('settleChargePaid presents charge.paid with splits, webhook and payer as they read back, credits each share once, and a rerun changes nothing', async () => {
  const provider = new FakePixProvider();
  const activities = wf.activities(provider);
  const { other, args } = await splitChargeInput('Loja Dividida', {
    amountCents: 7_000,
    share: 1_500,
    percentage: 21.43,
    url: 'https://loja.example/paid-events',
    events: ['charge.paid'],
  });
  const ownerBefore = await balance(wf.sequelize, accounts.merchantAvailable(merchantId));
  const otherBefore = await balance(wf.sequelize, accounts.merchantAvailable(other));
  const confirmation = await issuedAndPaidAtProvider(provider, activities, args);
  expect(await activities.settleChargePaid({ chargeId: args.chargeId, payment: confirmation })).toEqual({
    outcome: 'SETTLED',
  });
  expect(await activities.settleChargePaid({ chargeId: args.chargeId, payment: confirmation })).toEqual({
    outcome: 'ALREADY_PAID',
  });
  expect(await ledgerTransactions(args.chargeId)).toBe(1);
  expect(await balance(wf.sequelize, accounts.merchantAvailable(merchantId))).toBe(ownerBefore + 7_000 - 70 - 1_500);
  expect(await balance(wf.sequelize, accounts.merchantAvailable(other))).toBe(otherBefore + 1_500);
  expect(await eventTypes(args.chargeId)).toEqual(['charge.created', 'charge.paid']);
  const event = await OutboxEvent.findOne({ where: { aggregateId: args.chargeId, type: 'charge.paid' } });
  const stored = await Charge.findByPk(args.chargeId);
  expect(stored).toMatchObject({ status: 'PAID', paidAfterExpiry: false, endToEndId: confirmation.endToEndId });
  expect(event!.payload).toEqual(
    JSON.parse(JSON.stringify(await presentChargeRow(stored!, DEFAULT_PLATFORM_INSTITUTION_NAME))),
  );
  expect(event!.payload).toMatchObject({
    status: 'PAID',
    beneficiary: { id: merchantId, name: 'Loja WF' },
    splits: [{ merchantId: other, amountCents: 1_500, percentage: 21.43 }],
    webhook: { id: args.webhook!.id, url: args.webhook!.url, events: ['charge.paid'], secret: null },
  });
});

it('records a paid amount that differs from the charge, credits nothing, and expires the charge instead of failing', async () => {
  const provider = new FakePixProvider();
  const args = await input({ amountCents: 6_000, feeCents: 60 });
  const outcome = await withWorker(provider, async (tq) => {
    const { handle, issued } = await startAndIssue(tq, args);
    const paid = provider.markPaid(issued.providerChargeId);
    paid.amountCents = 5_999;
    await handle.signal(paymentConfirmedSignal, {
      providerChargeId: paid.id,
      endToEndId: paid.endToEndId!,
      amountCents: 5_999,
      paidAt: paid.paidAt!,
      payer: paid.payer,
    });
    return handle.result();
  });
  expect(outcome.status).toBe('EXPIRED');
  expect((await Charge.findByPk(args.chargeId))?.status).toBe('EXPIRED');
  expect(await ledgerTransactions(args.chargeId)).toBe(0);
  expect((await alerts(args.chargeId)).map((a) => a.kind)).toContain('AMOUNT_MISMATCH');
});

it('expires a charge the provider has no record of (close answers 404), with a search attribute saying so', async () => {
  const provider = new FakePixProvider();
  const args = await input();
  let workflowId = '';
  const outcome = await withWorker(provider, async (tq) => {
    const { handle, issued } = await startAndIssue(tq, args);
    workflowId = handle.workflowId;
    provider.charges.delete(issued.providerChargeId); // the provider forgot it (e.g. lost its state)
    return handle.result();
  });
  expect(outcome.status).toBe('EXPIRED');
  expect((await Charge.findByPk(args.chargeId))?.status).toBe('EXPIRED');
  expect(await eventTypes(args.chargeId)).toEqual(['charge.created', 'charge.expired']);
  const desc = await wf.env.client.workflow.getHandle(workflowId).describe();
  expect(desc.status.name).toBe('COMPLETED');
  expect(desc.typedSearchAttributes.get(BusinessStatusKey)).toBe('EXPIRED_NO_PROVIDER_RECORD');
  expect((await alerts(args.chargeId)).map((a) => a.kind)).toEqual(['NO_PROVIDER_RECORD']);
});

/**
 * Every record attempt "times out" (a retryable error), as when the DB pool is saturated; the
 * attempts keep running on the worker. `lateCommit` decides when the last one really commits.
 */
function slowRecordActivities(provider: FakePixProvider, lateCommit: 'after-give-up' | 'before-give-up') {
  const real = wf.activities(provider);
  let attempts = 0;
  let giveUpSeen!: () => void;
  const gaveUp = new Promise<void>((r) => (giveUpSeen = r));
  const late: { result?: unknown; error?: unknown; done?: Promise<void> } = {};
  // The record step: recordIssuedCharge (runs before 'charge-issue-one-step') or the record half of issueAndRecordPix.
  const slowly = async (record: () => Promise<unknown>) => {
    attempts++;
    if (attempts < 3) throw new Error('simulated timeout');
    if (lateCommit === 'before-give-up') {
      await record();
      throw new Error('simulated timeout: the commit happened but its answer was lost');
    }
    late.done = gaveUp.then(record).then(
      (r) => void (late.result = r),
      (e: unknown) => void (late.error = e),
    );
    throw new Error('simulated timeout');
  };
  const activities = {
    ...real,
    recordIssuedCharge: (a: Parameters<typeof real.recordIssuedCharge>[0]) => slowly(() => real.recordIssuedCharge(a)),
    issueAndRecordPix: async (input: ChargeLifecycleInput) => {
      const providerCharge = await real.issuePixAtProvider(input);
      return slowly(() => real.recordIssuedCharge({ input, providerCharge }));
    },
    closeOrphanProviderCharge: async (a: { reference: string }) => {
      giveUpSeen();
      if (late.done) await late.done; // let the zombie attempt try its commit first
      return real.closeOrphanProviderCharge(a);
    },
  };
  return { activities, late };
}

it('a record step that commits after the workflow gave up leaves no ghost charge and no charge.created', async () => {
  const provider = new FakePixProvider();
  const args = await input();
  const { activities, late } = slowRecordActivities(provider, 'after-give-up');
  const outcome = await withActivities(activities, async (taskQueue) => {
    const handle = await wf.env.client.workflow.start('chargeLifecycle', {
      taskQueue,
      workflowId: chargeWorkflowId(args.chargeId),
      args: [args],
    });
    const err = await handle.executeUpdate(issueChargeUpdate).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
    return handle.result();
  });
  await late.done;
  expect(outcome.status).toBe('FAILED');
  expect(late.error).toBeDefined();
  expect(await Charge.findByPk(args.chargeId)).toBeNull();
  expect(await eventTypes(args.chargeId)).toEqual([]);
  const [tomb] = await wf.sequelize.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM charge_tombstones WHERE charge_id = :id`,
    {
      replacements: { id: args.chargeId },
      type: 'SELECT' as never,
    },
  );
  expect(tomb.n).toBe(1);
});

it('answers the issue update truthfully when the last record attempt did commit', async () => {
  const provider = new FakePixProvider();
  const args = await input();
  const { activities } = slowRecordActivities(provider, 'before-give-up');
  const outcome = await withActivities(activities, async (taskQueue) => {
    const handle = await wf.env.client.workflow.start('chargeLifecycle', {
      taskQueue,
      workflowId: chargeWorkflowId(args.chargeId),
      args: [args],
    });
    const issued = await handle.executeUpdate(issueChargeUpdate);
    expect(issued.chargeId).toBe(args.chargeId);
    return handle.result();
  });
  // The charge exists, so it lives its normal life: not closed as an orphan, expired by its timer.
  expect(outcome.status).toBe('EXPIRED');
  expect((await Charge.findByPk(args.chargeId))?.status).toBe('EXPIRED');
  expect(await eventTypes(args.chargeId)).toEqual(['charge.created', 'charge.expired']);
});

/** A charge's input with one share to a new merchant (`other`) and its own webhook; the fee is 1 %. */
async function splitChargeInput(
  otherName: string,
  c: { amountCents: number; share: number; percentage: number; url: string; events: string[] },
) {
  const { merchantId: other } = await createMerchantWithCredential(
    wf.sequelize,
    { name: otherName },
    crypto.randomBytes(32).toString('hex'),
  );
  const args = await input({
    amountCents: c.amountCents,
    feeCents: c.amountCents / 100,
    splits: [{ merchantId: other, amountCents: c.share, percentage: c.percentage }],
    webhook: { id: crypto.randomUUID(), url: c.url, events: c.events, secretCiphertext: 'not-read-here' },
  });
  return { other, args };
}

/** Issues and records the charge, has the fake provider mark it paid, and answers its payment confirmation. */
async function issuedAndPaidAtProvider(
  provider: FakePixProvider,
  activities: ReturnType<typeof wf.activities>,
  args: ChargeLifecycleInput,
) {
  const providerCharge = await activities.issuePixAtProvider(args);
  await activities.recordIssuedCharge({ input: args, providerCharge });
  const paid = provider.markPaid(providerCharge.id);
  return {
    providerChargeId: paid.id,
    endToEndId: paid.endToEndId!,
    amountCents: paid.amountCents,
    paidAt: paid.paidAt!,
    payer: paid.payer,
  };
}
