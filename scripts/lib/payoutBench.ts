/**
 * The payout part of `npm run bench` (BENCH_ONLY=payouts): money out through Efí's send API, as
 * the gateway runs it (PIX_TRANSFERS_API=efi against the sandbox's /v3/gn/pix and
 * /v2/gn/pix/enviados routes). For each Pix send concurrency of BENCH_SEND_CONCURRENCIES (1,4,16;
 * PIX_SEND_CONCURRENCY, the sends in flight at once per PSP account, a worker setting read at
 * start, so the worker is restarted with each), a batch of BENCH_ITEMS (10,000) items, POST to the
 * batch's end; at the last concurrency one of BENCH_ITEMS / 10 first, so the table can show how the
 * cost grows (linearity). After each batch: every item PAID, each idEnvio accepted by the sandbox
 * exactly once (its transferStats, what GET /sandbox/transfers lists as `references`), the ledger
 * invariant; then the send notices (Efí's webhook per send → sentPixNotice) are let finish, so one
 * run's tail does not slow the next. Baseline (a): the sandbox's Efí send hammered directly at the
 * same send concurrency — PUT /v3/gn/pix/{idEnvio}, then GET /v2/gn/pix/enviados/id-envio/{idEnvio}
 * once the sandbox's settle time has passed (again at once while EM_PROCESSAMENTO), a bearer token
 * from POST /oauth/token, its webhooks paused — the physical limit of a paced payout here, with
 * nothing of ours in the way. The sandbox's settle time (SANDBOX_EFI_SEND_SETTLE_MS) is printed
 * with the figures: our floor per send is the first read of the outcome at or after it (the
 * adapter reads at once after the PUT, then 50, 100, 200… ms apart), printed as an estimate first.
 */
import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { POLL_FIRST_MS, POLL_MAX_MS } from '../../activities/provider/efi/efiTransfers';
import { SANDBOX_PIX_CLIENT_ID, SANDBOX_PIX_CLIENT_SECRET } from '../../config';
import { signedRequestHeaders } from '../../core/signatures/requestSignature';
import { createMerchantWithCredential, type MerchantCredentials } from '../../db/identity/merchantAdmin';
import { Merchant, PayoutBatch, PayoutItem } from '../../db/models';
import type { SandboxApp } from '../../sandbox/app';
import { SANDBOX_MERCHANT } from '../../sandbox/payer';
import { payoutBatchWorkflowId } from '../../workflows/payouts/definitions';
import { dispatcherWorkflowId } from '../../workflows/events/definitions';
import { sentPixNoticeWorkflow } from '../../workflows/transfers/definitions';
import { timed, type BenchTable } from './benchTable';
import { LoadErrors, loadFetch } from './loadFetch';
import { longestHistory } from './history';
import { ledgerProblems } from './ledgerInvariant';
import { cpuDeltaMs, cpuSnapshot, perOp, type ProcessGroups } from './processCpu';
import { peakRssMib, resetPeakRss } from './processMemory';
import { idEnvioFor, pspChargeRef } from '../../core/pix/apiPixIds';

export interface PayoutBenchDeps {
  apiUrl: string;
  sandboxUrl: string;
  /** The sandbox in this process: its record of the sends (transferStats) checks "paid once". */
  sandbox: SandboxApp;
  /** How long the sandbox's Efí send reads EM_PROCESSAMENTO (SANDBOX_EFI_SEND_SETTLE_MS). */
  efiSendSettleMs: number;
  temporal: Client;
  taskQueue: string;
  /** Where a batch's CPU goes (api, worker, temporal, postgres, bench: this process, the sandbox included). */
  cpuGroups: ProcessGroups;
  sequelize: Sequelize;
  encryptionKey: string;
  /** Stops the worker and starts it again with these variables added, once it polls; its pid. */
  restartWorker: (env: Record<string, string>) => Promise<number>;
  settings: { chunkSize: number; parallelChunks: number; itemConcurrency: number; sliceSize?: number };
  /** PIX_SEND_CONCURRENCY of each run, in order (BENCH_SEND_CONCURRENCIES). */
  sendConcurrencies: number[];
  items: number;
  table: BenchTable;
  line: (k: string, v: string) => void;
  waitUntil: (probe: () => Promise<boolean>, timeoutMs: number, what: string) => Promise<void>;
}

/** BENCH_SEND_CONCURRENCIES ("1,4,16" when unset): each a whole number 1..64, as PIX_SEND_CONCURRENCY takes. */
export function sendConcurrenciesFrom(raw: string | undefined): number[] {
  const values = (raw ?? '1,4,16')
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean)
    .map(Number);
  if (!values.length || values.some((v) => !Number.isInteger(v) || v < 1 || v > 64))
    throw new Error('BENCH_SEND_CONCURRENCIES: comma-separated whole numbers 1..64 (PIX_SEND_CONCURRENCY)');
  return values;
}

/** When the adapter first reads a send's outcome at or after `settleMs` (ms after the PUT): its poll schedule. */
export function firstOutcomeReadMs(settleMs: number): number {
  let at = 0;
  for (let pause = POLL_FIRST_MS; at < settleMs; pause = Math.min(pause * 2, POLL_MAX_MS)) at += pause;
  return at;
}

/** Longer than this for one batch at concurrency 1 and the output says so. */
const LONG_RUN_S = 300;

interface SendRun {
  concurrency: number;
  batch: BatchRun;
  check: RunCheck;
  noticesS: number | null;
  baselinePerS: number;
  /** The baseline's sends that failed (timeouts, resets, 5xx, another answer: scripts/lib/loadFetch.ts). */
  baselineErrors: LoadErrors;
  workerPeakMib: number;
  /** CPU ms per item of each process group, POST to the batch's end. */
  cpuPerItem: string;
}

export async function benchPayouts(d: PayoutBenchDeps): Promise<void> {
  const creds = await createMerchantWithCredential(
    d.sequelize,
    { name: 'Bench Pagadora', payoutsEnabled: true },
    d.encryptionKey,
  );
  await Merchant.update({ payoutFeeCents: 10 }, { where: { id: creds.merchantId } });
  const small = Math.max(1, Math.round(d.items / 10));
  await fund(d, creds, (d.items * d.sendConcurrencies.length + small) * 200);

  const floorMs = firstOutcomeReadMs(d.efiSendSettleMs);
  const estimateS = (c: number) => (d.items * floorMs) / c / 1000;
  process.stdout.write(
    `\npayouts through Efí's send API: the sandbox settles a send in ${d.efiSendSettleMs} ms; our first read of its outcome comes ${floorMs} ms after the PUT, so ${d.items} items take at least ${d.sendConcurrencies.map((c) => `${estimateS(c).toFixed(0)} s at send concurrency ${c}`).join(', ')}\n`,
  );
  if (d.sendConcurrencies.includes(1) && estimateS(1) > LONG_RUN_S)
    process.stdout.write(
      `note: ${d.items} items one send at a time take more than ${LONG_RUN_S / 60} minutes even with the sandbox settling at once (our poll's first read at or after the settle time is the floor); BENCH_SEND_CONCURRENCIES=4,16 leaves that run out\n`,
    );

  const runs: SendRun[] = [];
  let first: BatchRun | undefined;
  let noticesSoFar = await countNotices(d, false);
  for (const [i, concurrency] of d.sendConcurrencies.entries()) {
    const last = i === d.sendConcurrencies.length - 1;
    const workerPid = await d.restartWorker({
      PIX_TRANSFERS_API: 'efi',
      PIX_SEND_CONCURRENCY: String(concurrency),
    });
    if (last) {
      first = await runBatch(d, creds, small);
      noticesSoFar += small;
      await checkRun(d, first, small);
      await noticesFollowed(d, noticesSoFar);
    }
    resetPeakRss(workerPid);
    const cpuBefore = cpuSnapshot(d.cpuGroups);
    const batch = await runBatch(d, creds, d.items);
    const cpuPerItem = perOp(cpuDeltaMs(cpuBefore, cpuSnapshot(d.cpuGroups)), d.items);
    const workerPeakMib = Math.round(peakRssMib(workerPid));
    const check = await checkRun(d, batch, d.items);
    noticesSoFar += d.items;
    const noticesS = await noticesFollowed(d, noticesSoFar);
    const baselineErrors = new LoadErrors();
    const baselinePerS = await hammerEfi(d, d.items, concurrency, baselineErrors);
    const run = { concurrency, batch, check, noticesS, baselinePerS, baselineErrors, workerPeakMib, cpuPerItem };
    runs.push(run);
    process.stdout.write(
      `send concurrency ${concurrency}: ${d.items} items ${batch.status} in ${(batch.wallMs / 1000).toFixed(1)} s (${(d.items / (batch.wallMs / 1000)).toFixed(1)} items/s); baseline ${baselinePerS.toFixed(1)} sends/s; ${check.summary}\n`,
    );
  }

  const full = runs[runs.length - 1];
  process.stdout.write(
    `\npayout batch benchmark (${d.items} items, chunk ${d.settings.chunkSize}, ${d.settings.parallelChunks} chunks in parallel, ${d.settings.itemConcurrency} transfers per chunk, slices of ${d.settings.sliceSize ?? d.settings.itemConcurrency}; Efí sends, the sandbox settling in ${d.efiSendSettleMs} ms)\n`,
  );
  process.stdout.write(sendTable(d, runs, floorMs));
  d.line('final status', full.batch.status);
  d.line('POST /v1/payouts/batches answered in', `${full.batch.acceptedMs} ms (validated, staged, reserved)`);
  d.line(
    'wall time, POST to batch end',
    `${(full.batch.wallMs / 1000).toFixed(1)} s at send concurrency ${full.concurrency} (${small} items: ${(first!.wallMs / 1000).toFixed(1)} s)`,
  );
  for (const run of runs) d.line(`CPU ms per item, send c=${run.concurrency}`, run.cpuPerItem);
  for (const run of runs) d.line(`baseline load errors, send c=${run.concurrency}`, run.baselineErrors.summary());
  d.line('worker peak RSS (VmHWM)', `${Math.max(...runs.map((r) => r.workerPeakMib))} MiB (the largest of the runs)`);
  d.line(
    'history events: batch / largest chunk',
    `${full.batch.batchHistory} / ${full.batch.largestChunk} (limit 51,200)`,
  );
  d.line(
    'outbox dispatcher, longest run',
    `${await longestHistory(d.temporal, dispatcherWorkflowId(d.taskQueue))} history events`,
  );

  for (const run of runs) {
    const ok = run.batch.status === 'COMPLETED' && run.check.ok;
    const wallS = run.batch.wallMs / 1000;
    const itemsPerS = d.items / wallS;
    const goalRun = run === full;
    const errors = run.baselineErrors.total;
    const note = errors ? `baseline load errors: ${run.baselineErrors.summary()}` : '';
    // The goals are for 10,000 items, on the run at the highest send concurrency (the last):
    // a smaller run cannot meet them, however fast; the other runs are points of the curve.
    d.table.add({
      name: `payout batch ${d.items} items, send c=${run.concurrency}, settle ${d.efiSendSettleMs} ms, wall time (s)`,
      ours: wallS,
      baseline: d.items / run.baselinePerS,
      goal: goalRun ? '≤ 20 s at 10,000 items' : 'none (a point of the curve)',
      met: goalRun ? ok && d.items >= 10_000 && wallS <= 20 : null,
      errors,
      note,
    });
    d.table.add({
      name: `payout throughput send c=${run.concurrency}, settle ${d.efiSendSettleMs} ms (items/s)`,
      ours: itemsPerS,
      baseline: run.baselinePerS,
      goal: goalRun ? '≥ 0.6 × baseline (a)' : 'none (a point of the curve)',
      met: errors ? false : goalRun ? ok && itemsPerS >= 0.6 * run.baselinePerS : null,
      errors,
      note,
    });
  }
  const growth = full.batch.wallMs / first!.wallMs;
  d.table.add({
    name: `payout linearity time(${d.items})/time(${small}), send c=${full.concurrency}`,
    ours: growth,
    baseline: null,
    ratio: null,
    goal: '≤ 11',
    met: full.batch.status === 'COMPLETED' && growth <= 11,
  });
  const workerPeak = Math.max(...runs.map((r) => r.workerPeakMib));
  d.table.add({
    name: 'worker peak RSS during batch (MiB)',
    ours: workerPeak,
    baseline: null,
    goal: '< 400 MiB',
    met: workerPeak < 400,
  });
  const failed = runs.filter((r) => !r.check.ok);
  if (failed.length)
    throw new Error(
      `payouts: ${failed.map((r) => `send concurrency ${r.concurrency}: ${r.check.summary}`).join('; ')}`,
    );
}

/** Per send concurrency: ours, the baseline, their ratio, the floor our poll sets. */
function sendTable(d: PayoutBenchDeps, runs: SendRun[], floorMs: number): string {
  const head = [
    'send c',
    'wall s',
    'items/s',
    'baseline sends/s',
    'ratio',
    `floor items/s (1 read at ${floorMs} ms)`,
    'notices done +s',
    'paid once, ledger',
  ];
  const rows = runs.map((r) => {
    const itemsPerS = d.items / (r.batch.wallMs / 1000);
    return [
      String(r.concurrency),
      (r.batch.wallMs / 1000).toFixed(1),
      itemsPerS.toFixed(1),
      r.baselinePerS.toFixed(1),
      (itemsPerS / r.baselinePerS).toFixed(2),
      ((r.concurrency * 1000) / floorMs).toFixed(1),
      r.noticesS === null ? 'not all' : r.noticesS.toFixed(1),
      r.check.ok ? 'yes' : 'NO',
    ];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r: string[]) =>
    r
      .map((c, i) => c.padStart(widths[i]))
      .join('  ')
      .trimEnd();
  return [fmt(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(fmt)].join('\n') + '\n';
}

interface RunCheck {
  ok: boolean;
  summary: string;
}

/**
 * Every item of the batch PAID, and its idEnvio accepted by the sandbox exactly once (a PUT
 * answered 409 or retried still counts in `requests`, not in `created`), and the ledger invariant.
 */
async function checkRun(d: PayoutBenchDeps, batch: BatchRun, n: number): Promise<RunCheck> {
  const items = await PayoutItem.findAll({ where: { batchId: batch.batchId }, attributes: ['id', 'status'] });
  const stats = d.sandbox.state.transferStats;
  const notPaid = items.filter((i) => i.status !== 'PAID').length;
  let notOnce = 0;
  let puts = 0;
  for (const item of items) {
    const s = stats.get(idEnvioFor(item.id));
    if (s?.created !== 1) notOnce++;
    puts += s?.requests ?? 0;
  }
  const ledger = await ledgerProblems(d.sequelize);
  const ok = items.length === n && notPaid === 0 && notOnce === 0 && ledger.length === 0;
  const summary = [
    `${items.length - notPaid}/${n} items PAID`,
    `${items.length - notOnce} sent exactly once (${puts} PUTs)`,
    ledger.length ? `ledger: ${ledger.join('; ')}` : 'ledger invariant holds',
  ].join(', ');
  return { ok, summary };
}

/**
 * Waits until `expected` send notices (sentPixNotice runs, one per idEnvio) were started and none
 * is running, at most 5 minutes; the seconds it took, null when they did not all finish.
 */
async function noticesFollowed(d: PayoutBenchDeps, expected: number): Promise<number | null> {
  const started = Date.now();
  try {
    await d.waitUntil(
      async () => (await countNotices(d, false)) >= expected && (await countNotices(d, true)) === 0,
      5 * 60_000,
      'the send notices to be followed',
    );
    return (Date.now() - started) / 1000;
  } catch (err) {
    if (!(err as Error).message.startsWith('timed out')) throw err;
    process.stdout.write(
      `send notices: ${await countNotices(d, false)} of ${expected} started, ${await countNotices(d, true)} running after 5 min\n`,
    );
    return null;
  }
}

async function countNotices(d: PayoutBenchDeps, runningOnly: boolean): Promise<number> {
  const query = `WorkflowType = '${sentPixNoticeWorkflow.name}'${runningOnly ? " AND ExecutionStatus = 'Running'" : ''}`;
  return (await d.temporal.workflow.count(query)).count;
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
  return { batchId, status, acceptedMs, wallMs, batchHistory, largestChunk };
}

type BatchRun = Awaited<ReturnType<typeof runBatch>>;

/**
 * Baseline (a): `n` Efí sends straight to the sandbox, `concurrency` at a time, each PUT then GET by
 * its idEnvio once the settle time has passed; sends/s. The idEnvios are not of our form (bench…,
 * not a UUID's 32 hex digits) and the send webhooks are paused meanwhile, so none reaches the gateway.
 */
async function hammerEfi(d: PayoutBenchDeps, n: number, concurrency: number, errors: LoadErrors): Promise<number> {
  const token = await sandboxToken(d.sandboxUrl);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json' };
  const run = crypto.randomBytes(4).toString('hex');
  await pauseSendWebhooks(d.sandboxUrl, true);
  try {
    // A send that fails is counted (by kind; the status only, never the request: it carries the
    // token) and ends there; the rate counts the sends that completed.
    let failed = 0;
    const r = await timed(n, concurrency, async (i) => {
      const idEnvio = `bench${run}n${i}`;
      const put = await loadFetch(errors, `${d.sandboxUrl}/v3/gn/pix/${idEnvio}`, {
        method: 'PUT',
        headers,
        body: JSON.stringify({
          valor: '1.00',
          pagador: { chave: SANDBOX_MERCHANT.pixKey },
          favorecido: { chave: `recebedor${i}@example.com` },
        }),
      });
      if (put?.status !== 201) {
        if (put && put.status < 500) errors.count(`PUT ${put.status}`);
        failed++;
        return;
      }
      if (d.efiSendSettleMs > 0) await new Promise((resolve) => setTimeout(resolve, d.efiSendSettleMs));
      for (;;) {
        const got = await loadFetch(errors, `${d.sandboxUrl}/v2/gn/pix/enviados/id-envio/${idEnvio}`, { headers });
        if (got?.status !== 200) {
          if (got && got.status < 500) errors.count(`GET ${got.status}`);
          failed++;
          return;
        }
        const status = (JSON.parse(got.body.toString('utf8')) as { status: string }).status;
        if (status === 'REALIZADO') return;
        if (status !== 'EM_PROCESSAMENTO') {
          errors.count(`send ${status}`);
          failed++;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    });
    return (n - failed) / (r.wallMs / 1000);
  } finally {
    await pauseSendWebhooks(d.sandboxUrl, false);
  }
}

/** A bearer token from the sandbox's POST /oauth/token (client credentials of development: config.ts). */
async function sandboxToken(sandboxUrl: string): Promise<string> {
  const basic = Buffer.from(
    `${encodeURIComponent(SANDBOX_PIX_CLIENT_ID)}:${encodeURIComponent(SANDBOX_PIX_CLIENT_SECRET)}`,
  ).toString('base64');
  const res = await fetch(`${sandboxUrl}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  if (res.status !== 200) throw new Error(`sandbox token: ${res.status}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function pauseSendWebhooks(sandboxUrl: string, paused: boolean): Promise<void> {
  const res = await fetch(`${sandboxUrl}/sandbox/efi/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ paused }),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`sandbox: pausing the send webhooks answered ${res.status}`);
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
