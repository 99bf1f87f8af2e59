/**
 * `npm run bench`: performance figures on real infrastructure (embedded PostgreSQL, Temporal dev
 * server, sandbox provider over HTTP, the worker as its own process). Prints:
 *   - a 10,000-item payout batch: wall time from POST to the batch's end, items per second,
 *     the worker's peak resident memory, and the largest workflow history;
 * BENCH_ITEMS overrides the batch size.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { spawn, type ChildProcess } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import type { Express } from 'express';
import { createApp } from '../api/app';
import pino from 'pino';
import { signRequest } from '../core/signatures/requestSignature';
import { createMerchantWithCredential, type MerchantCredentials } from '../db/merchantAdmin';
import { Merchant, PayoutBatch } from '../db/models';
import { runMigrations } from '../db/migrator';
import { createSequelize } from '../db/sequelize';
import { createSandboxApp } from '../sandbox/app';
import { payoutBatchWorkflowId } from '../workflows/payout/definitions';
import { prepareDatabase } from './lib/database';
import { generateSecrets } from './lib/localSecrets';
import { freePort } from './lib/ports';
import { startTemporalDevServer } from './lib/temporalDevServer';
import { ensureTools, projectRoot } from './lib/tools';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 10_000);

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

async function waitUntil(probe: () => Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
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
        logger: pino({ level: 'silent' }),
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
      stdio: 'ignore',
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        DATABASE_URL: db.url,
        TEMPORAL_ADDRESS: temporalServer.address,
        TEMPORAL_TASK_QUEUE: taskQueue,
        PROVIDER_BASE_URL: sandboxHttp.url,
        PUBLIC_BASE_URL: api.url,
        ...secrets,
      },
    });

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
    const chunk = await temporal.workflow.getHandle(`${payoutBatchWorkflowId(batchId)}-chunk-0`).describe();

    const line = (k: string, v: string) => process.stdout.write(`${k.padEnd(38)} ${v}\n`);
    process.stdout.write(`\npayout batch benchmark (${ITEMS} items, chunk ${settings.chunkSize}, ${settings.parallelChunks} chunks in parallel, ${settings.itemConcurrency} transfers per chunk)\n`);
    line('final status', batch.status);
    line('POST /v1/payouts/batches answered in', `${acceptedMs} ms (validated, staged, reserved)`);
    line('wall time, POST to batch end', `${(wallMs / 1000).toFixed(1)} s`);
    line('throughput', `${(ITEMS / (wallMs / 1000)).toFixed(1)} items/s`);
    line('worker peak RSS (VmHWM)', `${peakRssMb(worker.pid!)} MiB`);
    line('history events: batch / one chunk', `${parent.historyLength} / ${chunk.historyLength} (limit 51,200)`);
  } finally {
    if (worker) worker.kill('SIGTERM');
    for (const c of cleanup.reverse()) await c();
    await sequelize.close();
    await temporalServer.stop();
    await db.stop();
  }
}

async function signedPost(apiUrl: string, creds: MerchantCredentials, p: string, body: string) {
  const ts = Date.now();
  const res = await fetch(`${apiUrl}${p}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-client-id': creds.clientId,
      'x-client-secret': creds.clientSecret,
      'x-gateway-timestamp': String(ts),
      'x-gateway-signature': signRequest({ timestampMs: ts, method: 'POST', path: p, rawBody: body, secret: creds.clientSecret }),
    },
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
