/**
 * `npm run bench`: performance figures on real infrastructure (embedded PostgreSQL, Temporal dev
 * server, sandbox provider over HTTP, the worker as its own process). Prints:
 *   - webhooks: delay from the provider's payment callback to the merchant's receiver getting
 *     charge.paid, median and p99 over BENCH_CHARGES (200) charges;
 *   - a 10,000-item payout batch: wall time from POST to the batch's end, items per second,
 *     the worker's peak resident memory, the largest workflow history and the outbox
 *     dispatcher's longest run.
 * The worker's and the API's output go to log files under .data/bench/ (paths printed); if the
 * worker dies the bench stops at once and says so.
 *   - receipts: PDF receipt downloads (GET /v1/receipts/transactions/{id}, signed) at 50 concurrent
 *     clients, receipts/s and p99, first downloads (rendered in the worker-thread pool) beside
 *     cached ones (the stored bytes), with the API's event-loop delay while rendering and, as the
 *     raw baseline, the same PDF rendered on the main thread one after another.
 * BENCH_ITEMS overrides the batch size, BENCH_RECEIPTS the number of paid charges the receipt
 * part downloads (200); BENCH_ONLY=webhooks|payouts|receipts|dashboard runs one part.
 *   - dashboard: every /dashboard route's p50 and p99 with 1,000,000 charges for one merchant
 *     (scripts/lib/dashboardBench.ts; BENCH_DASHBOARD_CHARGES overrides the count).
 */
import crypto from 'node:crypto';
import http from 'node:http';
import { QueryTypes } from 'sequelize';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import type { Express } from 'express';
import { createApp } from '../api/app';
import pino from 'pino';
import { signedRequestHeaders } from '../core/signatures/requestSignature';
import { createMerchantWithCredential, type MerchantCredentials } from '../db/merchantAdmin';
import { Merchant, PayoutBatch } from '../db/models';
import { runMigrations } from '../db/migrator';
import { createSequelize } from '../db/sequelize';
import { createSandboxApp } from '../sandbox/app';
import { payoutBatchWorkflowId } from '../workflows/payout/definitions';
import { dispatcherWorkflowId } from '../workflows/webhook/definitions';
import { longestHistory } from './lib/history';
import { prepareDatabase } from './lib/database';
import { generateSecrets } from './lib/localSecrets';
import { freePort } from './lib/ports';
import { startTemporalDevServer } from './lib/temporalDevServer';
import { ensureTools, projectRoot } from './lib/tools';
import { benchReceipts } from './lib/receiptBench';
import { benchDashboard } from './lib/dashboardBench';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 10_000);
const CHARGES = Number(process.env.BENCH_CHARGES ?? 200);
const ONLY = process.env.BENCH_ONLY;

function listen(app: Express): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
  });
}

function peakRssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

/** Set when the worker process ends before the bench does: waiting any longer is pointless. */
let workerGone: string | undefined;

async function waitUntil(probe: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (workerGone) throw new Error(`${what}: ${workerGone}`);
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function main() {
  ensureTools('cli');
  const secrets = generateSecrets();
  const database = `gw_bench_${Date.now()}`;
  const db = await prepareDatabase({ database, dataDir: '.data/bench-postgres', port: await freePort() });
  const temporalServer = await startTemporalDevServer({ port: await freePort() });
  const sequelize = createSequelize(db.url, { poolMax: 20 });
  const cleanup: (() => Promise<void> | void)[] = [];
  let worker: ChildProcess | undefined;
  const logDir = path.join(projectRoot, '.data', 'bench');
  fs.mkdirSync(logDir, { recursive: true });
  const workerLog = path.join(logDir, `worker-${database}.log`);
  const apiLog = path.join(logDir, `api-${database}.log`);
  process.stdout.write(`worker log: ${workerLog}\napi log:    ${apiLog}\n`);
  try {
    await runMigrations(sequelize);
    const sandbox = createSandboxApp({ apiKey: secrets.PROVIDER_API_KEY, callbackSecret: secrets.PROVIDER_CALLBACK_SECRET });
    const sandboxHttp = await listen(sandbox.app);
    cleanup.push(() => sandbox.stop(), () => new Promise<void>((r) => sandboxHttp.server.close(() => r())));
    const connection = await Connection.connect({ address: temporalServer.address });
    const temporal = new Client({ connection });
    const taskQueue = 'bench';
    const settings = {
      chunkSize: Number(process.env.PAYOUT_CHUNK_SIZE ?? 500),
      parallelChunks: Number(process.env.PAYOUT_PARALLEL_CHUNKS ?? 2),
      itemConcurrency: Number(process.env.PAYOUT_ITEM_CONCURRENCY ?? 20),
    };
    const api = await listen(
      createApp({
        sequelize,
        temporal,
        taskQueue,
        logger: pino({ level: 'info' }, pino.destination({ dest: apiLog, sync: false })),
        credentialsEncryptionKey: secrets.CREDENTIALS_ENCRYPTION_KEY,
        providerCallbackSecret: secrets.PROVIDER_CALLBACK_SECRET,
        defaultFee: { bps: 99, fixedCents: 0 },
        defaultChargeTtlSeconds: 3600,
        idempotencyTtlHours: 24,
        rateLimitPerMinute: 1_000_000,
        allowPrivateWebhookDestinations: true,
        payoutSettings: settings,
      }),
    );
    cleanup.push(() => new Promise<void>((r) => api.server.close(() => r())), () => connection.close());

    worker = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'workers', 'main.ts')], {
      cwd: projectRoot,
      stdio: ['ignore', fs.openSync(workerLog, 'a'), fs.openSync(workerLog, 'a')],
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'info',
        DATABASE_URL: db.url,
        TEMPORAL_ADDRESS: temporalServer.address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        PROVIDER_BASE_URL: sandboxHttp.url,
        PUBLIC_BASE_URL: api.url,
        ...secrets,
      },
    });

    worker.once('exit', (code, signal) => {
      workerGone = `the worker exited (${signal ? `signal ${signal}` : `code ${code}`}); see ${workerLog}`;
    });
    const line = (k: string, v: string) => process.stdout.write(`${k.padEnd(38)} ${v}\n`);
    if (!ONLY || ONLY === 'webhooks') await benchWebhookLatency(api.url, sandboxHttp.url, sandbox, sequelize, secrets.CREDENTIALS_ENCRYPTION_KEY, line);
    if (!ONLY || ONLY === 'receipts') await benchReceipts({ apiUrl: api.url, sandboxUrl: sandboxHttp.url, sequelize, encryptionKey: secrets.CREDENTIALS_ENCRYPTION_KEY, line });
    if (!ONLY || ONLY === 'dashboard') await benchDashboard({ apiUrl: api.url, sequelize, line });
    if (ONLY === 'webhooks' || ONLY === 'receipts' || ONLY === 'dashboard') return;

    const creds = await createMerchantWithCredential(sequelize, { name: 'Bench Pagadora', payoutsEnabled: true }, secrets.CREDENTIALS_ENCRYPTION_KEY);
    await Merchant.update({ payoutFeeCents: 10 }, { where: { id: creds.merchantId } });
    await fund(api.url, sandboxHttp.url, creds, ITEMS * 200);

    const body = JSON.stringify({
      idempotencyKey: `bench-${crypto.randomUUID()}`,
      items: Array.from({ length: ITEMS }, (_, i) => ({
        pixKey: `recebedor${i}@example.com`,
        pixKeyType: 'EMAIL',
        amountCents: 100,
        recipientName: `Recebedor ${i}`,
        referenceId: `bench-${i}`,
      })),
    });
    const started = Date.now();
    const created = await signedPost(api.url, creds, '/v1/payouts/batches', body);
    const acceptedMs = Date.now() - started;
    if (created.status !== 201) throw new Error(`batch create failed: ${created.status} ${JSON.stringify(created.body).slice(0, 300)}`);
    const batchId = created.body.batchId as string;
    await waitUntil(async () => (await PayoutBatch.findByPk(batchId))!.status !== 'PROCESSING', 30 * 60_000, 'batch to finish');
    const wallMs = Date.now() - started;
    const batch = (await PayoutBatch.findByPk(batchId))!;
    const parent = await temporal.workflow.getHandle(payoutBatchWorkflowId(batchId)).describe();
    let largestChunk = 0;
    for (let i = 0; i * settings.chunkSize < ITEMS; i++) {
      const chunk = await temporal.workflow.getHandle(`${payoutBatchWorkflowId(batchId)}-chunk-${i}`).describe().catch(() => undefined);
      largestChunk = Math.max(largestChunk, chunk?.historyLength ?? 0);
    }
    const dispatcherHistory = await longestHistory(temporal, dispatcherWorkflowId(taskQueue));

    process.stdout.write(`\npayout batch benchmark (${ITEMS} items, chunk ${settings.chunkSize}, ${settings.parallelChunks} chunks in parallel, ${settings.itemConcurrency} transfers per chunk)\n`);
    line('final status', batch.status);
    line('POST /v1/payouts/batches answered in', `${acceptedMs} ms (validated, staged, reserved)`);
    line('wall time, POST to batch end', `${(wallMs / 1000).toFixed(1)} s`);
    line('throughput', `${(ITEMS / (wallMs / 1000)).toFixed(1)} items/s`);
    line('worker peak RSS (VmHWM)', `${peakRssMb(worker.pid!)} MiB`);
    line('history events: batch / largest chunk', `${parent.historyLength} / ${largestChunk} (limit 51,200)`);
    line('outbox dispatcher, longest run', `${dispatcherHistory} history events`);
  } finally {
    if (worker) worker.kill('SIGTERM');
    for (const c of cleanup.reverse()) await c();
    await sequelize.close();
    await temporalServer.stop();
    await db.stop();
  }
}

/** Pays CHARGES charges and times callback → merchant receiver for each charge.paid. */
async function benchWebhookLatency(
  apiUrl: string,
  sandboxUrl: string,
  sandbox: ReturnType<typeof createSandboxApp>,
  sequelize: import('sequelize').Sequelize,
  encryptionKey: string,
  line: (k: string, v: string) => void,
) {
  const receivedAt = new Map<string, number>();
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { id: string } };
      if (event.type === 'charge.paid' && !receivedAt.has(event.data.id)) receivedAt.set(event.data.id, at);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  try {
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events`;
    const creds = await createMerchantWithCredential(sequelize, { name: 'Bench Loja' }, encryptionKey);
    const headers = { 'content-type': 'application/json', 'x-client-id': creds.clientId, 'x-client-secret': creds.clientSecret };
    const hook = await fetch(`${apiUrl}/sellers/webhooks`, { method: 'POST', headers, body: JSON.stringify({ url: receiverUrl, events: ['charge.paid'] }) });
    if (hook.status !== 201) throw new Error(`webhook registration failed: ${hook.status}`);
    const ids: string[] = [];
    for (let i = 0; i < CHARGES; i++) {
      const res = await fetch(`${apiUrl}/sellers/pix`, { method: 'POST', headers, body: JSON.stringify({ amountCents: 1_000 + i }) });
      ids.push(((await res.json()) as { id: string }).id);
    }
    // Payments arrive at a steady rate (BENCH_PAYMENTS_PER_SECOND, default 5), as real traffic would.
    const gapMs = 1000 / Number(process.env.BENCH_PAYMENTS_PER_SECOND ?? 5);
    const payments: Promise<unknown>[] = [];
    for (const id of ids) {
      payments.push(fetch(`${sandboxUrl}/sandbox/charges/${id}/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
      await new Promise((r) => setTimeout(r, gapMs));
    }
    await Promise.all(payments);
    await waitUntil(async () => receivedAt.size >= ids.length, 120_000, 'every charge.paid to arrive');
    const refs = await sequelize.query<{ id: string; provider_charge_id: string }>(`SELECT id, provider_charge_id FROM charges WHERE id IN (:ids)`, { replacements: { ids }, type: QueryTypes.SELECT });
    const delays: number[] = [];
    for (const { id, provider_charge_id } of refs) {
      const callback = sandbox.state.callbacks.find((c) => c.chargeId === provider_charge_id);
      if (callback) delays.push(receivedAt.get(id)! - Date.parse(callback.at));
    }
    delays.sort((a, b) => a - b);
    const pct = (p: number) => delays[Math.min(delays.length - 1, Math.ceil((p / 100) * delays.length) - 1)];
    process.stdout.write(`\nwebhook latency (${delays.length} charges paid at ${1000 / gapMs}/s: provider callback → merchant receives charge.paid)\n`);
    line('median', `${pct(50)} ms`);
    line('p99', `${pct(99)} ms`);
    line('max', `${delays[delays.length - 1]} ms`);
  } finally {
    receiver.close();
  }
}

async function signedPost(apiUrl: string, creds: MerchantCredentials, p: string, body: string) {
  const res = await fetch(`${apiUrl}${p}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signedRequestHeaders({ ...creds, method: 'POST', path: p, rawBody: body }) },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function fund(apiUrl: string, sandboxUrl: string, creds: MerchantCredentials, amountCents: number) {
  const headers = { 'content-type': 'application/json', 'x-client-id': creds.clientId, 'x-client-secret': creds.clientSecret };
  const res = await fetch(`${apiUrl}/sellers/pix`, { method: 'POST', headers, body: JSON.stringify({ amountCents }) });
  const charge = (await res.json()) as { id: string };
  await fetch(`${sandboxUrl}/sandbox/charges/${charge.id}/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  await waitUntil(async () => {
    const r = await fetch(`${apiUrl}/sellers/pix/${charge.id}`, { headers });
    return ((await r.json()) as { status: string }).status === 'PAID';
  }, 60_000, 'funding charge paid');
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
