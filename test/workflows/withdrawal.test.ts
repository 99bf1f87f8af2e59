/**
 * The withdrawal workflow on the Java time-skipping test server: provider outages retried with
 * backoff (minutes of backoff in seconds), and cancels before and after the transfer was sent.
 * Activities are the real ones on the real test database; only the provider is an in-memory fake.
 */
import crypto from 'node:crypto';
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { QueryTypes } from 'sequelize';
import type { Activities } from '../../activities';
import { writeLedgerEntry } from '../../activities/ledger/ledgerWriter';
import { accounts } from '../../core/ledger/accounts';
import { chargePaidEntry } from '../../core/ledger/postings';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { Withdrawal } from '../../db/models';
import { requestWithdrawalUpdate, withdrawalWorkflowId } from '../../workflows/withdrawals/definitions';
import type { WithdrawalInput } from '../../workflows/withdrawals/types';
import { FakePixProvider } from '../support/fakePixProvider';
import { waitFor } from '../support/env';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { useWorkflowEnv } from '../support/workflowEnv';

jest.setTimeout(120_000);

const FEE = 150;
const wf = useWorkflowEnv();
let merchantId: string;

beforeAll(async () => {
  ({ merchantId } = await createMerchantWithCredential(
    wf.sequelize,
    { name: 'Loja Saque WF', pixKey: 'financeiro@loja-saque.com.br', pixKeyType: 'EMAIL', withdrawalFeeCents: FEE },
    crypto.randomBytes(32).toString('hex'),
  ));
  // Money to withdraw, booked as a paid charge would book it.
  await wf.sequelize.transaction((t) =>
    writeLedgerEntry(
      wf.sequelize,
      chargePaidEntry({ chargeId: crypto.randomUUID(), merchantId, amountCents: 1_000_000, feeCents: 0, splits: [] }),
      t,
    ),
  );
});

afterEach(async () => {
  await assertLedgerInvariant(wf.sequelize);
});

const input = (amountCents = 10_000): WithdrawalInput => ({
  withdrawalId: crypto.randomUUID(),
  merchantId,
  amountCents,
  description: null,
  idempotencyKey: null,
  userId: null,
});

async function withWorker<T>(
  provider: FakePixProvider,
  fn: (taskQueue: string) => Promise<T>,
  wrap: (a: Activities) => Activities = (a) => a,
): Promise<T> {
  return wf.withWorker(wrap(wf.activities(provider)), fn);
}

function start(taskQueue: string, args: WithdrawalInput) {
  return wf.env.client.workflow.start('withdrawalLifecycle', {
    taskQueue,
    workflowId: withdrawalWorkflowId(args.withdrawalId),
    args: [args],
  });
}

const available = () => balance(wf.sequelize, accounts.merchantAvailable(merchantId));
const reserved = () => balance(wf.sequelize, accounts.merchantReserved(merchantId));

/**
 * What the ledger movements of one withdrawal put into an account. The platform's accounts
 * (provider clearing, fees) are shared with the other workflow test files, which run at the same
 * time on the same database: their balances before and after say nothing about this withdrawal.
 */
async function postedBy(withdrawalId: string, code: string): Promise<number> {
  const [row] = await wf.sequelize.query<{ sum: string | null }>(
    `SELECT SUM(p.amount_cents) AS sum FROM ledger_postings p
     JOIN ledger_accounts a ON a.id = p.account_id JOIN ledger_transactions t ON t.id = p.transaction_id
     WHERE a.code = :code AND t.reference_type = 'withdrawal' AND t.reference_id = :withdrawalId`,
    { replacements: { code, withdrawalId }, type: QueryTypes.SELECT },
  );
  return Number(row?.sum ?? 0);
}

async function failureTypeOf(promise: Promise<unknown>): Promise<string | undefined> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  return ((err as WorkflowFailedError).cause as { type?: string } | undefined)?.type;
}

it('retries the transfer through a provider outage, then completes and moves the money once', async () => {
  const provider = new FakePixProvider();
  provider.transientTransferFailures = 4;
  const args = input(10_000);
  const availableBefore = await available();

  const outcome = await withWorker(provider, async (tq) => {
    const handle = await start(tq, args);
    const reservation = await handle.executeUpdate(requestWithdrawalUpdate);
    expect(reservation).toEqual({
      withdrawalId: args.withdrawalId,
      status: 'PROCESSING',
      amountCents: 10_000,
      feeCents: FEE,
      totalDebitedCents: 10_000 + FEE,
    });
    return handle.result();
  });

  expect(outcome).toEqual({ withdrawalId: args.withdrawalId, status: 'COMPLETED' });
  expect(provider.transferCalls).toBe(5);
  expect(provider.transfers.size).toBe(1);
  const row = await Withdrawal.findByPk(args.withdrawalId);
  expect(row).toMatchObject({ status: 'COMPLETED', partnerTxId: args.withdrawalId, failureReason: null });
  expect(row?.providerTransferId).toBe(provider.transfers.get(args.withdrawalId)?.id);
  expect(row?.providerEndToEndId).toMatch(/^E\d{8}/);
  expect(row?.processedAt).not.toBeNull();
  expect(await available()).toBe(availableBefore - 10_000 - FEE);
  expect(await reserved()).toBe(0);
  expect(await postedBy(args.withdrawalId, accounts.providerClearing)).toBe(10_000);
  expect(await postedBy(args.withdrawalId, accounts.platformFees)).toBe(FEE);
});

it('refuses a withdrawal above the available balance through the update, storing nothing', async () => {
  const provider = new FakePixProvider();
  const args = input((await available()) + 1);
  await withWorker(provider, async (tq) => {
    const handle = await start(tq, args);
    const err = await handle.executeUpdate(requestWithdrawalUpdate).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((err as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'InsufficientAvailableBalance' });
    expect(await handle.result()).toEqual({ withdrawalId: args.withdrawalId, status: 'REFUSED' });
  });
  expect(await Withdrawal.findByPk(args.withdrawalId)).toBeNull();
  expect(provider.transferCalls).toBe(0);
});

it('returns the reserve when cancelled before the transfer was sent', async () => {
  const provider = new FakePixProvider();
  const args = input(20_000);
  const availableBefore = await available();
  let openGate: () => void = () => undefined;
  const gate = new Promise<void>((r) => (openGate = r));
  // The reservation commits, then its answer waits until the test has cancelled the workflow.
  const holdReservation = (a: Activities): Activities => ({
    ...a,
    reserveWithdrawal: async (i) => {
      const result = await a.reserveWithdrawal(i);
      await gate;
      return result;
    },
  });

  await withWorker(
    provider,
    async (tq) => {
      const handle = await start(tq, args);
      const update = handle.executeUpdate(requestWithdrawalUpdate);
      await waitFor(() => Withdrawal.findByPk(args.withdrawalId), 'the reservation to commit');
      expect(await available()).toBe(availableBefore - 20_000 - FEE);
      await handle.cancel();
      openGate();
      expect(await update).toMatchObject({ status: 'PROCESSING', totalDebitedCents: 20_000 + FEE });
      expect(await failureTypeOf(handle.result())).toBe('WithdrawalCancelled');
    },
    holdReservation,
  );

  expect(provider.transferCalls).toBe(0);
  expect(await Withdrawal.findByPk(args.withdrawalId)).toMatchObject({
    status: 'CANCELLED',
    failureReason: 'cancelled before the transfer was sent',
    providerTransferId: null,
  });
  expect(await available()).toBe(availableBefore);
  expect(await reserved()).toBe(0);
});

it('cancelled during an outage: asks the provider, finds no transfer, and returns the reserve', async () => {
  const provider = new FakePixProvider();
  provider.transientTransferFailures = 1_000_000;
  const args = input(30_000);
  const availableBefore = await available();

  await withWorker(provider, async (tq) => {
    const handle = await start(tq, args);
    await handle.executeUpdate(requestWithdrawalUpdate);
    await waitFor(async () => provider.transferCalls >= 3, 'a few failed transfer attempts');
    await handle.cancel();
    expect(await failureTypeOf(handle.result())).toBe('WithdrawalCancelled');
  });

  expect(provider.transfers.size).toBe(0);
  expect(await Withdrawal.findByPk(args.withdrawalId)).toMatchObject({ status: 'CANCELLED' });
  expect(await available()).toBe(availableBefore);
  expect(await reserved()).toBe(0);
});

it('cancelled after the provider made the transfer (answers lost): completes, never releases paid money', async () => {
  const provider = new FakePixProvider();
  provider.loseTransferAnswers = true;
  provider.lookupUnavailable = true; // the retry asks the provider first, and gets no answer either
  const args = input(40_000);
  const availableBefore = await available();

  const outcome = await withWorker(provider, async (tq) => {
    const handle = await start(tq, args);
    await handle.executeUpdate(requestWithdrawalUpdate);
    await waitFor(
      async () => provider.transferCalls >= 1 && provider.lookupCalls >= 1,
      'the transfer to be sent and its answer lost',
    );
    await handle.cancel();
    provider.lookupUnavailable = false;
    return handle.result();
  });

  expect(outcome).toEqual({ withdrawalId: args.withdrawalId, status: 'COMPLETED' });
  expect(provider.transfers.size).toBe(1);
  expect(await Withdrawal.findByPk(args.withdrawalId)).toMatchObject({ status: 'COMPLETED' });
  expect(await available()).toBe(availableBefore - 40_000 - FEE);
  expect(await reserved()).toBe(0);
});

it('fails on a refused Pix key and returns the whole reserve, fee included', async () => {
  const provider = new FakePixProvider();
  const other = await createMerchantWithCredential(
    wf.sequelize,
    { name: 'Loja Chave Ruim', pixKey: 'invalid@loja.com.br', pixKeyType: 'EMAIL', withdrawalFeeCents: FEE },
    crypto.randomBytes(32).toString('hex'),
  );
  await wf.sequelize.transaction((t) =>
    writeLedgerEntry(
      wf.sequelize,
      chargePaidEntry({
        chargeId: crypto.randomUUID(),
        merchantId: other.merchantId,
        amountCents: 50_000,
        feeCents: 0,
        splits: [],
      }),
      t,
    ),
  );
  const args = { ...input(50_000 - FEE), merchantId: other.merchantId };
  const outcome = await withWorker(provider, async (tq) => {
    const handle = await start(tq, args);
    await handle.executeUpdate(requestWithdrawalUpdate);
    return handle.result();
  });
  expect(outcome.status).toBe('FAILED');
  expect(provider.transferCalls).toBe(1);
  const row = await Withdrawal.findByPk(args.withdrawalId);
  expect(row).toMatchObject({ status: 'FAILED', failureCode: 'INVALID_PIX_KEY', partnerTxId: args.withdrawalId });
  expect(row?.failureReason).toMatch(/DICT/);
  expect(await balance(wf.sequelize, accounts.merchantAvailable(other.merchantId))).toBe(50_000);
  expect(await balance(wf.sequelize, accounts.merchantReserved(other.merchantId))).toBe(0);
});

it('gives up reserving durably: a late reserve attempt finds the terminal row and debits nothing', async () => {
  const provider = new FakePixProvider();
  const args = input(10_000);
  const availableBefore = await available();
  let real: Activities['reserveWithdrawal'] | undefined;
  await withWorker(
    provider,
    async (tq) => {
      const handle = await start(tq, args);
      const err = await handle.executeUpdate(requestWithdrawalUpdate).catch((e: unknown) => e);
      expect((err as WorkflowUpdateFailedError).cause).toMatchObject({ type: 'ReservationUnavailable' });
      await handle.result();
    },
    (a) => {
      real = a.reserveWithdrawal;
      return {
        ...a,
        reserveWithdrawal: async () => {
          throw new Error('database connection lost');
        },
      };
    },
  );
  // The timed-out attempt commits late: it must not reserve.
  const late = await real!(args).catch((e: unknown) => e);
  expect(late).not.toMatchObject({ status: 'PROCESSING' });
  expect(await Withdrawal.findByPk(args.withdrawalId)).toMatchObject({
    status: 'FAILED',
    failureCode: 'NOT_PROCESSED',
  });
  expect(await available()).toBe(availableBefore);
  expect(await reserved()).toBe(0);
  expect(provider.transferCalls).toBe(0);
});
