/**
 * Scaling out: two worker processes serve one task queue during a payout
 * batch, as several hosts would against one Temporal cluster and one PostgreSQL. Chunks and
 * their slices land on either worker; every item must still be paid exactly once — checked
 * against the sandbox PSP's own record of Efí sends — the ledger must balance, and the account's
 * send concurrency (PIX_SEND_CONCURRENCY, 1 by default: Efí's "one send at a time") must hold
 * across both processes: no two sends in flight at once at the PSP.
 */
import crypto from 'node:crypto';
import type { ChildProcess } from 'node:child_process';
import { accounts } from '../../core/ledger/accounts';
import { idEnvioFor } from '../../core/pix/apiPixIds';
import { PayoutItem } from '../../db/models';
import { payoutBatchWorkflowId } from '../../workflows/payouts/definitions';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant, balance } from '../support/ledger';
import {
  fundByPaidCharge,
  items,
  payoutMerchant,
  sandboxTransfers,
  setFaults,
  signedCall,
  waitForBatchEnd,
} from '../support/payouts';
import { killHard, spawnWorkerProcess } from '../support/workerProcess';

jest.setTimeout(300_000);

let stack: IntegrationStack;
const workers: ChildProcess[] = [];

beforeAll(async () => {
  stack = await startIntegrationStack({
    inProcessWorker: false,
    // Small chunks and slices, several at once: both workers get work.
    apiOverrides: { payoutSettings: { chunkSize: 25, parallelChunks: 4, itemConcurrency: 5, sliceSize: 25 } },
  });
  // PIX_SEND_CONCURRENCY unset: the default, one send of the account at a time.
  expect(stack.workerEnv.PIX_SEND_CONCURRENCY).toBeUndefined();
  workers.push(spawnWorkerProcess(stack.workerEnv), spawnWorkerProcess(stack.workerEnv));
});

afterAll(async () => {
  for (const w of workers) await killHard(w);
  await stack?.stop();
});

it('pays every item exactly once with two worker processes on one task queue', async () => {
  const m = await payoutMerchant(stack, { feeCents: 5 });
  await fundByPaidCharge(stack, m, 500_000);
  const before = await balance(stack.sequelize, accounts.merchantAvailable(m.merchantId));
  await setFaults(stack, { latencyMs: 20 });

  // One send at a time, each holding the account's slot until its outcome is read (the sandbox's
  // 150 ms of EM_PROCESSAMENTO and the polls): about 0.3 s a send, so 150 items, not more.
  const n = 150;
  const created = await signedCall(stack, m, 'POST', '/v1/payouts/batches', {
    idempotencyKey: `two-${crypto.randomUUID()}`,
    items: items(n, { amountCents: 1_000 }),
  });
  expect(created.status).toBe(201);
  const batchId = created.body.batchId as string;

  const done = await waitForBatchEnd(stack, m, batchId, 240_000);
  expect(done).toMatchObject({ status: 'COMPLETED', paidItems: n, failedItems: 0 });

  const transfers = await sandboxTransfers(stack);
  const rows = await PayoutItem.findAll({ where: { batchId } });
  expect(rows).toHaveLength(n);
  for (const item of rows) {
    expect(item.status).toBe('PAID');
    expect(transfers[item.id]?.created).toBe(1);
  }

  // The sandbox's record of the sends: one per item, and never two in flight at once. A send is in
  // flight at Efí from its acceptance to its settlement (EM_PROCESSAMENTO); the slot is let go
  // only once a read saw the outcome, so the next send is accepted at or after the previous one
  // settled. The record's instants are whole milliseconds of one clock: touching intervals allowed.
  const sends = rows.map((item) => stack.sandbox.state.efiSends.get(idEnvioFor(item.id)));
  expect(sends.filter((s) => s === undefined)).toEqual([]);
  const intervals = sends
    .map((s) => ({ idEnvio: s!.idEnvio, accepted: Date.parse(s!.requestedAt), settles: Date.parse(s!.settlesAt) }))
    .sort((a, b) => a.accepted - b.accepted);
  const overlaps = intervals.flatMap((cur, i) =>
    i > 0 && cur.accepted < intervals[i - 1].settles ? [{ previous: intervals[i - 1], next: cur }] : [],
  );
  expect(overlaps).toEqual([]);

  expect(await balance(stack.sequelize, accounts.merchantAvailable(m.merchantId))).toBe(before - n * 1_005);
  expect(await balance(stack.sequelize, accounts.merchantReserved(m.merchantId))).toBe(0);
  await assertLedgerInvariant(stack.sequelize);

  // Both processes did payout work: the identities (pid@host) that started the chunks' activities.
  const identities = new Set<string>();
  for (let i = 0; i * 25 < n; i++) {
    const history = await stack.temporal.workflow
      .getHandle(`${payoutBatchWorkflowId(batchId)}-chunk-${i}`)
      .fetchHistory();
    for (const e of history.events ?? [])
      if (e.activityTaskStartedEventAttributes?.identity) identities.add(e.activityTaskStartedEventAttributes.identity);
  }
  expect([...identities].map((id) => Number(id.split('@')[0])).sort()).toEqual(workers.map((w) => w.pid).sort());
});
