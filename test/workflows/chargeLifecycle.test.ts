/**
 * ChargeLifecycle on the Java time-skipping test server: a 30-minute expiry runs in seconds.
 * Activities are the real ones on the real test database; only the provider (outside the
 * system) is an in-memory fake.
 */
import crypto from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createTimeSkippingEnv } from '../support/timeSkipping';
import { Worker } from '@temporalio/worker';
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { createActivities } from '../../activities';
import { accounts } from '../../core/ledger/accounts';
import { createMerchantWithCredential } from '../../db/merchantAdmin';
import { Charge, OutboxEvent } from '../../db/models';
import { createSequelize } from '../../db/sequelize';
import { cancelChargeUpdate, chargeWorkflowId, issuePixUpdate, paymentConfirmedSignal } from '../../workflows/charge/definitions';
import type { ChargeLifecycleInput } from '../../workflows/charge/types';
import { workflowsPath } from '../../workers/createWorker';
import { FakePixProvider } from '../support/fakePixProvider';
import { testEnv } from '../support/env';
import { assertLedgerInvariant, balance } from '../support/ledger';

jest.setTimeout(120_000);

let env: TestWorkflowEnvironment;
let sequelize: Sequelize;
let merchantId: string;

beforeAll(async () => {
  sequelize = createSequelize(testEnv().databaseUrl);
  env = await createTimeSkippingEnv();
  ({ merchantId } = await createMerchantWithCredential(sequelize, { name: 'Loja WF' }, crypto.randomBytes(32).toString('hex')));
});

afterAll(async () => {
  await env?.teardown();
  await sequelize?.close();
});

afterEach(async () => {
  await assertLedgerInvariant(sequelize);
});

/** Expiry is set on the test server's clock, which runs ahead of real time once timers were skipped. */
async function input(overrides: Partial<ChargeLifecycleInput> = {}): Promise<ChargeLifecycleInput> {
  const serverNow = await env.currentTimeMs();
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
  const taskQueue = `wf-${crypto.randomUUID()}`;
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: require.resolve(workflowsPath),
    activities: createActivities({ sequelize, provider, providerCallbackUrl: 'http://127.0.0.1:1/unused' }),
  });
  return worker.runUntil(fn(taskQueue));
}

async function startAndIssue(taskQueue: string, args: ChargeLifecycleInput) {
  const handle = await env.client.workflow.start('chargeLifecycle', { taskQueue, workflowId: chargeWorkflowId(args.chargeId), args: [args] });
  const issued = await handle.executeUpdate(issuePixUpdate);
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
  expect(Date.now() - realStart).toBeLessThan(30_000);
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
  const before = await balance(sequelize, accounts.merchantAvailable(merchantId));
  const outcome = await withWorker(provider, async (tq) => {
    const { handle, issued } = await startAndIssue(tq, args);
    const paid = provider.markPaid(issued.providerChargeId);
    const confirmation = { providerChargeId: paid.id, endToEndId: paid.endToEndId!, amountCents: paid.amountCents, paidAt: paid.paidAt!, payer: paid.payer };
    await handle.signal(paymentConfirmedSignal, confirmation);
    await handle.signal(paymentConfirmedSignal, confirmation);
    return handle.result();
  });
  expect(outcome.status).toBe('PAID');
  expect(await balance(sequelize, accounts.merchantAvailable(merchantId))).toBe(before + 19_800);
  const row = await Charge.findByPk(args.chargeId);
  expect(row).toMatchObject({ status: 'PAID', paidAfterExpiry: false });
  expect(row?.payerSnapshot).toMatchObject({ name: 'Pagador' });
  const [{ n }] = await sequelize.query<{ n: number }>(`SELECT count(*)::int AS n FROM ledger_transactions WHERE reference_id = :id`, {
    replacements: { id: args.chargeId },
    type: 'SELECT' as never,
  });
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
    const handle = await env.client.workflow.start('chargeLifecycle', { taskQueue: tq, workflowId: chargeWorkflowId(args.chargeId), args: [args] });
    const err = await handle.executeUpdate(issuePixUpdate).catch((e: unknown) => e);
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
    const handle = await env.client.workflow.start('chargeLifecycle', { taskQueue: tq, workflowId: chargeWorkflowId(args.chargeId), args: [args] });
    const err = await handle.executeUpdate(issuePixUpdate).catch((e: unknown) => e);
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
    expect(await handle.executeUpdate(cancelChargeUpdate, { args: [{ reason: 'customer gave up' }] })).toBe('CANCELLED');
    const again = await handle.executeUpdate(cancelChargeUpdate, { args: [{ reason: 'again' }] }).catch((e: unknown) => e);
    // The workflow closed after the cancel: a second cancel finds nothing to cancel.
    expect(again).toBeInstanceOf(WorkflowNotFoundError);
    await handle.result();
  });
  expect((await Charge.findByPk(args.chargeId))?.status).toBe('CANCELLED');
  expect(provider.closeCalls.map((c) => c.reason)).toEqual(['CANCELLED']);
});
