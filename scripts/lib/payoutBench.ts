/**
 * The payout part of `npm run bench` (BENCH_ONLY=payouts): a batch of BENCH_ITEMS (10,000)
 * items, POST to the batch's end, and before it one of BENCH_ITEMS / 10 so the table can show
 * how the cost grows (linearity). Baseline (a): the sandbox's own POST /v1/transfers hammered
 * directly, as many transfers at the concurrency the batch uses (parallel chunks × transfers per
 * chunk) — the physical limit of a payout here, with nothing of ours in the way.
 */
import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { signedRequestHeaders } from '../../core/signatures/requestSignature';
import { createMerchantWithCredential, type MerchantCredentials } from '../../db/identity/merchantAdmin';
import { Merchant, PayoutBatch } from '../../db/models';
import { payoutBatchWorkflowId } from '../../workflows/payouts/definitions';
import { dispatcherWorkflowId } from '../../workflows/events/definitions';
import { timed, type BenchTable } from './benchTable';
import { longestHistory } from './history';
import { peakRssMib, resetPeakRss } from './processMemory';
import { pspChargeRef } from '../../core/pix/apiPixIds';

export interface PayoutBenchDeps {
  apiUrl: string;
  sandboxUrl: string;
  providerApiKey: string;
  temporal: Client;
  taskQueue: string;
  sequelize: Sequelize;
  encryptionKey: string;
  workerPid: number;
  settings: { chunkSize: number; parallelChunks: number; itemConcurrency: number; sliceSize?: number };
  items: number;
  table: BenchTable;
  line: (k: string, v: string) => void;
  waitUntil: (probe: () => Promise<boolean>, timeoutMs: number, what: string) => Promise<void>;
}

export async function benchPayouts(d: PayoutBenchDeps): Promise<void> {
  const concurrency = d.settings.parallelChunks * d.settings.itemConcurrency;
  const creds = await createMerchantWithCredential(
    d.sequelize,
    { name: 'Bench Pagadora', payoutsEnabled: true },
    d.encryptionKey,
  );
  await Merchant.update({ payoutFeeCents: 10 }, { where: { id: creds.merchantId } });
  const small = Math.max(1, Math.round(d.items / 10));
  await fund(d, creds, (d.items + small) * 200);

  const first = await runBatch(d, creds, small);
  resetPeakRss(d.workerPid);
  const full = await runBatch(d, creds, d.items);
  const workerPeak = Math.round(peakRssMib(d.workerPid));
  const transfersPerS = await hammerSandbox(d, d.items, concurrency);

  const itemsPerS = d.items / (full.wallMs / 1000);
  process.stdout.write(
    `\npayout batch benchmark (${d.items} items, chunk ${d.settings.chunkSize}, ${d.settings.parallelChunks} chunks in parallel, ${d.settings.itemConcurrency} transfers per chunk, slices of ${d.settings.sliceSize ?? d.settings.itemConcurrency})\n`,
  );
  d.line('final status', full.status);
  d.line('POST /v1/payouts/batches answered in', `${full.acceptedMs} ms (validated, staged, reserved)`);
  d.line(
    'wall time, POST to batch end',
    `${(full.wallMs / 1000).toFixed(1)} s (${small} items: ${(first.wallMs / 1000).toFixed(1)} s)`,
  );
  d.line('throughput', `${itemsPerS.toFixed(1)} items/s`);
  d.line(
    'baseline: sandbox transfers directly',
    `${transfersPerS.toFixed(1)} transfers/s at concurrency ${concurrency}`,
  );
  d.line('worker peak RSS (VmHWM)', `${workerPeak} MiB`);
  d.line('history events: batch / largest chunk', `${full.batchHistory} / ${full.largestChunk} (limit 51,200)`);
  d.line(
    'outbox dispatcher, longest run',
    `${await longestHistory(d.temporal, dispatcherWorkflowId(d.taskQueue))} history events`,
  );

  const ok = full.status === 'COMPLETED';
  const wallS = full.wallMs / 1000;
  // The goal is for 10,000 items: a smaller run cannot meet it, however fast.
  d.table.add({
    name: `payout batch ${d.items} items, wall time (s)`,
    ours: wallS,
    baseline: d.items / transfersPerS,
    goal: '≤ 20 s at 10,000 items',
    met: ok && d.items >= 10_000 && wallS <= 20,
  });
  d.table.add({
    name: `payout throughput c=${concurrency} (items/s)`,
    ours: itemsPerS,
    baseline: transfersPerS,
    goal: '≥ 0.6 × baseline (a)',
    met: ok && itemsPerS >= 0.6 * transfersPerS,
  });
  const growth = full.wallMs / first.wallMs;
  d.table.add({
    name: `payout linearity time(${d.items})/time(${small})`,
    ours: growth,
    baseline: null,
    ratio: null,
    goal: '≤ 11',
    met: ok && growth <= 11,
  });
  d.table.add({
    name: 'worker peak RSS during batch (MiB)',
    ours: workerPeak,
    baseline: null,
    goal: '< 400 MiB',
    met: workerPeak < 400,
  });
}

async function runBatch(d: PayoutBenchDeps, creds: MerchantCredentials, n: number) {
  const body = JSON.stringify({
    idempotencyKey: `bench-${crypto.randomUUID()}`,
    items: Array.from({ length: n }, (_, i) => ({
      pixKey: `recebedor${i}@example.com`,
      pixKeyType: 'EMAIL',
      amountCents: 100,
      recipientName: `Recebedor ${i}`,
      referenceId: `bench-${n}-${i}`,
    })),
  });
  const started = Date.now();
  const created = await signedPost(d.apiUrl, creds, '/v1/payouts/batches', body);
  const acceptedMs = Date.now() - started;
  if (created.status !== 201)
    throw new Error(`batch create failed: ${created.status} ${JSON.stringify(created.body).slice(0, 300)}`);
  const batchId = created.body.batchId as string;
  await d.waitUntil(
    async () => (await PayoutBatch.findByPk(batchId))!.status !== 'PROCESSING',
    30 * 60_000,
    'batch to finish',
  );
  const wallMs = Date.now() - started;
  const status = (await PayoutBatch.findByPk(batchId))!.status;
  const batchHistory = (await d.temporal.workflow.getHandle(payoutBatchWorkflowId(batchId)).describe()).historyLength;
  let largestChunk = 0;
  for (let i = 0; i * d.settings.chunkSize < n; i++) {
    const chunk = await d.temporal.workflow
      .getHandle(`${payoutBatchWorkflowId(batchId)}-chunk-${i}`)
      .describe()
      .catch(() => undefined);
    largestChunk = Math.max(largestChunk, chunk?.historyLength ?? 0);
  }
  return { status, acceptedMs, wallMs, batchHistory, largestChunk };
}

/** Baseline (a): `n` transfers straight to the sandbox, `concurrency` at a time, each with its own idempotency key. */
async function hammerSandbox(d: PayoutBenchDeps, n: number, concurrency: number): Promise<number> {
  const run = crypto.randomUUID();
  const r = await timed(n, concurrency, async (i) => {
    const res = await fetch(`${d.sandboxUrl}/v1/transfers`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${d.providerApiKey}`,
        'content-type': 'application/json',
        accept: 'application/json',
        'idempotency-key': `bench-${run}-${i}`,
      },
      body: JSON.stringify({
        reference: `bench-${run}-${i}`,
        amountCents: 100,
        pixKey: `recebedor${i}@example.com`,
        pixKeyType: 'EMAIL',
        recipientName: `Recebedor ${i}`,
        recipientDocument: null,
      }),
    });
    await res.arrayBuffer();
    // The status only, never the request: it carries the provider key.
    if (res.status !== 201) throw new Error(`sandbox transfer ${i}: ${res.status}`);
  });
  return n / (r.wallMs / 1000);
}

async function signedPost(apiUrl: string, creds: MerchantCredentials, p: string, body: string) {
  const res = await fetch(`${apiUrl}${p}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...signedRequestHeaders({ ...creds, method: 'POST', path: p, rawBody: body }),
    },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function fund(d: PayoutBenchDeps, creds: MerchantCredentials, amountCents: number) {
  const headers = {
    'content-type': 'application/json',
    'x-client-id': creds.clientId,
    'x-client-secret': creds.clientSecret,
  };
  const res = await fetch(`${d.apiUrl}/sellers/pix`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ amountCents }),
  });
  const charge = (await res.json()) as { id: string };
  await fetch(`${d.sandboxUrl}/sandbox/charges/${pspChargeRef(charge.id)}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  await d.waitUntil(
    async () => {
      const r = await fetch(`${d.apiUrl}/sellers/pix/${charge.id}`, { headers });
      return ((await r.json()) as { status: string }).status === 'PAID';
    },
    60_000,
    'funding charge paid',
  );
}
