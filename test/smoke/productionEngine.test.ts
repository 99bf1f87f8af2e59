/**
 * The money smoke set on the engine and the build production runs: the Temporal server
 * (go.temporal.io/server on PostgreSQL, SQL visibility, 4 history shards, the compose dynamic
 * config, its frontend closed to any client without a certificate of its CA: mutual TLS with the
 * certificates `npm start` makes, scripts/lib/temporalServer.ts and temporalCertificates.ts) and
 * the API, worker and sandbox started from the
 * production build (`npm run build`, production dependencies only, NODE_ENV=production, https
 * behind a TLS proxy: test/support/builtStack.ts), merchants made with the built operator CLI.
 * Nothing here is mocked; every money scenario ends on the provider's own record and the ledger
 * invariant.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection, type TLSConfig } from '@temporalio/client';
import { Client as PgClient } from 'pg';
import { QueryTypes, type Sequelize } from 'sequelize';
import { accounts } from '../../core/ledger/accounts';
import { signedRequestHeaders } from '../../core/signatures/requestSignature';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { createSequelize } from '../../db/sequelize';
import { janitorScheduleId } from '../../workflows/transfers/definitions';
import { idEnvioFor } from '../../core/pix/apiPixIds';
import { ensureTemporalCertificates, LOCAL_SERVER_NAME } from '../../scripts/lib/temporalCertificates';
import { startTemporalServer, type TemporalServer } from '../../scripts/lib/temporalServer';
import { startTemporalUi } from '../../scripts/lib/temporalUi';
import { freePort } from '../../scripts/lib/ports';
import { TEMPORAL_HISTORY_SHARDS, TEMPORAL_SERVER_VERSION } from '../../scripts/lib/temporalEngine';
import { testEnv, waitFor } from '../support/env';
import { testLogFile } from '../support/testLogs';
import { publicHost, startBuiltStack, type BuiltStack } from '../support/builtStack';
import { assertLedgerInvariant, balance } from '../support/ledger';
import { items } from '../support/payouts';
import { startReceiver, type Receiver } from '../support/receiver';
import { createTestCertificates } from '../support/testCertificates';

jest.setTimeout(420_000);

let server: TemporalServer;
/** The server's CA, server and client certificates, made as `npm start` makes them (in a temporary folder). */
let tlsDir: string;
let temporalDatabase: string;
let stack: BuiltStack;
/** The stack's database and Temporal, as an operator looks at them. */
let sequelize: Sequelize;
let temporal: Client;
let receiver: Receiver;
/** A charge left unpaid from the start, so it expires (1 minute, the shortest allowed) while the batches run. */
let expiring: { id: string; seller: MerchantCredentials };
/** The merchant the receiver's WEBHOOK_PRIVATE_RECEIVERS entry names. */
let smokeSeller: MerchantCredentials;

beforeAll(async () => {
  const env = testEnv();
  const run = new URL(env.databaseUrl).pathname.slice(1);
  // `<run database>_…`: dropped with the run's other databases when npm test ends.
  temporalDatabase = `${run}_t${crypto.randomBytes(3).toString('hex')}`;
  tlsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-tls-'));
  server = await startTemporalServer({
    postgresUrl: env.databaseUrl,
    database: temporalDatabase,
    port: await freePort(),
    tls: (await ensureTemporalCertificates(tlsDir)).files,
    logFile: testLogFile(`temporal-server-${process.pid}.log`),
  });
  // The merchant's receiver, on this machine's own address: private (or reserved) on every test
  // machine, so production delivers to it only because the operator names it for that merchant
  // (WEBHOOK_PRIVATE_RECEIVERS, set below once the merchant exists).
  receiver = await startReceiver((await publicHost()).address);
  // Small chunks and slices, so a batch spans several chunk workflows and slices.
  stack = await startBuiltStack({
    temporalAddress: server.address,
    temporalTlsEnv: server.clientEnv,
    databaseUrl: env.databaseUrl,
    templateDatabase: env.templateDatabase,
    env: {
      PAYOUT_CHUNK_SIZE: '100',
      PAYOUT_PARALLEL_CHUNKS: '2',
      PAYOUT_ITEM_CONCURRENCY: '10',
      PAYOUT_SLICE_SIZE: '50',
    },
  });
  sequelize = createSequelize(stack.databaseUrl, { poolMax: 3 });
  temporal = new Client({ connection: await Connection.connect({ address: server.address, tls: server.clientTls }) });
  const seller = await createMerchant('Loja Expira');
  const created = await api('POST', '/sellers/pix', seller, {
    amountCents: 500,
    expiresAt: new Date(Date.now() + 61_000).toISOString(),
  });
  if (created.status !== 201) throw new Error(`expiring charge: ${created.status} ${JSON.stringify(created.body)}`);
  expiring = { id: created.body.id, seller };
  // The receiver's entry names its merchant, whose id exists only now: the API and the worker
  // start again with it, as an operator's deployment would.
  smokeSeller = await createMerchant('Loja Smoke');
  for (const service of ['api', 'worker'] as const)
    stack.env[service].WEBHOOK_PRIVATE_RECEIVERS = `${new URL(receiver.url).host}=${smokeSeller.merchantId}`;
  await Promise.all([stack.restart('api'), stack.restart('worker')]);
});

afterAll(async () => {
  await receiver?.close();
  await temporal?.connection.close();
  await sequelize?.close();
  await stack?.stop();
  await server?.stop();
  if (tlsDir) fs.rmSync(tlsDir, { recursive: true, force: true });
});

/** A merchant made the way an operator does it: the built CLI. */
async function createMerchant(name: string, opts: { payouts?: boolean } = {}): Promise<MerchantCredentials> {
  const out = await stack.cli([
    'merchant',
    'create',
    '--name',
    name,
    ...(opts.payouts ? ['--payouts-enabled'] : []),
    '--json',
  ]);
  return JSON.parse(out) as MerchantCredentials;
}

function api(method: string, path: string, creds: MerchantCredentials, body?: unknown) {
  return stack.request(method, `${stack.apiUrl}${path}`, {
    body,
    headers: { 'x-client-id': creds.clientId, 'x-client-secret': creds.clientSecret },
  });
}

let lastTimestamp = 0;
/** A signed request (the payout routes ask for one); a fresh timestamp each, as a real client signs. */
function signed(method: string, path: string, creds: MerchantCredentials, body?: unknown) {
  const ts = (lastTimestamp = Math.max(Date.now(), lastTimestamp + 1));
  const rawBody = body === undefined ? '' : JSON.stringify(body);
  const headers = signedRequestHeaders({ ...creds, method, path, rawBody, timestampMs: ts });
  return stack.request(method, `${stack.apiUrl}${path}`, { body, headers });
}

async function paidCharge(creds: MerchantCredentials, body: Record<string, unknown>) {
  const created = await api('POST', '/sellers/pix', creds, body);
  expect(created.status).toBe(201);
  expect((await stack.pay(created.body.id)).status).toBe(200);
  await waitFor(
    async () => (await api('GET', `/sellers/pix/${created.body.id}`, creds)).body.status === 'PAID',
    'charge PAID',
    60_000,
  );
  return created.body as { id: string; webhook?: { secret: string } };
}

it('runs on the production engine: PostgreSQL persistence, 4 history shards, SQL visibility', async () => {
  const info = await temporal.workflowService.getSystemInfo({});
  expect(info.serverVersion).toBe(TEMPORAL_SERVER_VERSION);
  // The dev server has one shard in SQLite; here the shards compose and the scripts agree on, in PostgreSQL.
  const temporalDb = new URL(testEnv().databaseUrl);
  temporalDb.pathname = `/${temporalDatabase}`;
  const client = new PgClient({ connectionString: temporalDb.toString() });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM shards');
    expect(Number(rows[0].n)).toBe(TEMPORAL_HISTORY_SHARDS);
  } finally {
    await client.end();
  }
});

it("the frontend requires mutual TLS: no certificate, another CA's or plain TCP is refused; the built API and worker, with the certificate, are in", async () => {
  // What each attempt got: connected, or refused. Connection.connect calls the frontend at once.
  const attempt = async (tls: TLSConfig | undefined): Promise<string> => {
    try {
      const connection = await Connection.connect({ address: server.address, tls, connectTimeout: '3s' });
      try {
        await connection.workflowService.getSystemInfo({});
        return 'connected';
      } finally {
        await connection.close();
      }
    } catch {
      return 'refused';
    }
  };
  const ca = fs.readFileSync(server.tls.caFile);
  const stranger = await createTestCertificates();
  try {
    expect({
      plainTcp: await attempt(undefined),
      tlsWithoutCertificate: await attempt({ serverNameOverride: LOCAL_SERVER_NAME, serverRootCACertificate: ca }),
      certificateOfAnotherCa: await attempt({
        serverNameOverride: LOCAL_SERVER_NAME,
        serverRootCACertificate: ca,
        clientCertPair: { crt: Buffer.from(stranger.stranger.cert), key: Buffer.from(stranger.stranger.key) },
      }),
      // The server's certificate is checked too: a client that trusts another CA does not go on.
      untrustedServer: await attempt({ ...server.clientTls, serverRootCACertificate: Buffer.from(stranger.ca.cert) }),
      withTheClientCertificate: await attempt(server.clientTls),
    }).toEqual({
      plainTcp: 'refused',
      tlsWithoutCertificate: 'refused',
      certificateOfAnotherCa: 'refused',
      untrustedServer: 'refused',
      withTheClientCertificate: 'connected',
    });
  } finally {
    stranger.remove();
  }

  // The `temporal` CLI, as docs/operations.md runs it: with the certificate flags, and without.
  const cli = (args: string[]) =>
    temporalCli(['operator', 'namespace', 'describe', '-n', 'default', '--address', server.address, ...args]);
  const caOnly = ['--tls-ca-path', server.tls.caFile];
  const certificate = ['--tls-cert-path', server.tls.clientCertFile, '--tls-key-path', server.tls.clientKeyFile];
  expect(await cli([])).toEqual({ ok: false, out: expect.stringContaining('failed reaching server') });
  // Refused in the handshake ("certificate required", or a broken pipe when the alert loses the race).
  expect(await cli(caOnly)).toEqual({ ok: false, out: expect.stringContaining('failed reaching server') });
  expect(await cli([...caOnly, ...certificate])).toEqual({ ok: true, out: expect.stringMatching(/Name\s+default/) });

  // The built services, given the certificate, are in: /ready asks Temporal, the worker polls.
  expect(stack.env.api.TEMPORAL_TLS_CERT).toBe(server.tls.clientCertFile);
  expect((await stack.request('GET', `${stack.apiUrl}/ready`)).status).toBe(200);
  const health = await fetch(`http://127.0.0.1:${stack.env.worker.WORKER_HEALTH_PORT}/healthz`);
  expect(health.status).toBe(200);
});

/** The Temporal CLI of the test run against this server: whether it succeeded, and its output. */
async function temporalCli(args: string[]): Promise<{ ok: boolean; out: string }> {
  // Only PATH and an empty home (it looks for a config file there): no TEMPORAL_* of the run may help it in.
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-cli-home-'));
  try {
    return await new Promise((resolve) =>
      execFile(
        testEnv().cliPath,
        args,
        { env: { PATH: process.env.PATH ?? '', HOME: home }, timeout: 30_000 },
        (err, stdout, stderr) => resolve({ ok: !err, out: `${stdout}${stderr}` }),
      ),
    );
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}

it('no devDependency can be loaded from the build; its production dependencies can', async () => {
  for (const dev of ['tsx', 'jest', 'typescript', '@swc/jest'])
    expect([dev, await resolveIn(stack.dir, dev)]).toEqual([dev, 'not found']);
  expect(await resolveIn(stack.dir, '@temporalio/worker')).toContain(stack.dir);
});

it('a seller charge is created, paid, its charge.paid delivered and its PDF receipt drawn; its run is found by MerchantId, in the Web UI too', async () => {
  const seller = smokeSeller;
  // The receiver is this merchant's: another merchant cannot register it.
  const other = await api('POST', '/sellers/webhooks', expiring.seller, {
    url: `${receiver.url}/other`,
    events: ['charge.paid'],
  });
  expect(other.status).toBe(400);
  const charge = await paidCharge(seller, { amountCents: 12_345, webhook_url: `${receiver.url}/smoke` });
  // Drawn by a render thread whose entry is the compiled renderer (api/receipts/receiptDocuments.ts).
  const receipt = await signed('GET', `/v1/receipts/transactions/${charge.id}`, seller);
  expect({ status: receipt.status, start: String(receipt.body).slice(0, 5) }).toEqual({ status: 200, start: '%PDF-' });
  const delivered = await waitFor(
    async () =>
      receiver.received.find((r) => {
        const event = JSON.parse(r.rawBody) as { type?: string };
        return r.path === '/smoke' && event.type === 'charge.paid' && r.rawBody.includes(charge.id);
      }),
    'charge.paid delivered',
    60_000,
  );
  expect(delivered.headers['gateway-event-id']).toBeTruthy();
  expect(delivered.headers['gateway-signature']).toBeTruthy();
  await assertLedgerInvariant(sequelize);

  // Operators find a merchant's runs in the Web UI by MerchantId: SQL visibility answers the query.
  const found = await waitFor(
    async () => {
      const runs: string[] = [];
      for await (const run of temporal.workflow.list({ query: `MerchantId = "${seller.merchantId}"` }))
        runs.push(run.workflowId);
      return runs.length > 0 ? runs : undefined;
    },
    'the charge run found by MerchantId',
    90_000,
  );
  expect(found.join(' ')).toContain(charge.id);

  // And so does the Web UI operators use, the version compose runs, against this server: with
  // the client certificate, and on loopback only (nothing answers on this machine's own address).
  const ui = await startTemporalUi({
    temporalAddress: server.address,
    tls: server.tls,
    port: await freePort(),
    logFile: testLogFile(`temporal-ui-${process.pid}.log`),
  });
  try {
    const port = Number(new URL(ui.url).port);
    expect(new URL(ui.url).hostname).toBe('127.0.0.1');
    expect(await reachable((await publicHost()).address, port)).toBe(false);
    const query = encodeURIComponent(`MerchantId = "${seller.merchantId}"`);
    const res = await fetch(`${ui.url}/api/v1/namespaces/default/workflows?query=${query}`);
    expect(res.status).toBe(200);
    const listed = (await res.json()) as { executions?: { execution: { workflowId: string } }[] };
    expect(listed.executions?.map((e) => e.execution.workflowId).join(' ')).toContain(charge.id);
    expect((await fetch(ui.url)).status).toBe(200);
  } finally {
    await ui.stop();
  }
});

it('the worker created the janitor Schedule, and a triggered run completes', async () => {
  const schedule = temporal.schedule.getHandle(janitorScheduleId(stack.taskQueue));
  const described = await schedule.describe();
  expect(described.action).toMatchObject({ type: 'startWorkflow', taskQueue: stack.taskQueue });
  const before = described.info.recentActions.length;
  await schedule.trigger();
  const action = await waitFor(
    async () => {
      const now = await schedule.describe();
      return now.info.recentActions.length > before ? now.info.recentActions.at(-1) : undefined;
    },
    'the triggered janitor run',
    90_000,
  );
  const run = temporal.workflow.getHandle(
    action.action.workflow.workflowId,
    action.action.workflow.firstExecutionRunId,
  );
  await run.result();
  expect((await run.describe()).status.name).toBe('COMPLETED');
});

it('a 300-item payout batch survives its worker killed in the middle: each item paid once, ledger balanced', async () => {
  const m = await fundedPayoutMerchant(600_000, 5);
  const before = await balance(sequelize, accounts.merchantAvailable(m.merchantId));
  const batchId = await createBatch(m, 300);
  await waitFor(async () => (await paidItems(batchId)) >= 30, 'thirty items paid before the kill', 120_000);
  await stack.kill('worker');
  expect(await paidItems(batchId)).toBeLessThan(300);
  await stack.restart('worker');
  await expectBatchCompleted(m, batchId, 300);
  expect(await balance(sequelize, accounts.merchantAvailable(m.merchantId))).toBe(before - 300 * 1_005);
  expect(await balance(sequelize, accounts.merchantReserved(m.merchantId))).toBe(0);
  await assertLedgerInvariant(sequelize);
});

it('a payout batch survives the Temporal server restarted in the middle', async () => {
  const m = await fundedPayoutMerchant(300_000, 0);
  const before = await balance(sequelize, accounts.merchantAvailable(m.merchantId));
  const batchId = await createBatch(m, 200);
  await waitFor(async () => (await paidItems(batchId)) >= 20, 'twenty items paid before the restart', 120_000);
  await server.restart();
  await expectBatchCompleted(m, batchId, 200);
  expect(await balance(sequelize, accounts.merchantAvailable(m.merchantId))).toBe(before - 200 * 1_000);
  expect(await balance(sequelize, accounts.merchantReserved(m.merchantId))).toBe(0);
  await assertLedgerInvariant(sequelize);
});

it('the charge left unpaid expired', async () => {
  await waitFor(
    async () => (await api('GET', `/sellers/pix/${expiring.id}`, expiring.seller)).body.status === 'EXPIRED',
    'charge EXPIRED',
    150_000,
  );
  await assertLedgerInvariant(sequelize);
});

/** Whether a TCP connection to host:port opens. */
function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 3000 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

function resolveIn(dir: string, name: string): Promise<string> {
  return new Promise((resolve) =>
    execFile(process.execPath, ['-p', `require.resolve(${JSON.stringify(name)})`], { cwd: dir }, (err, stdout) =>
      resolve(err ? 'not found' : stdout.trim()),
    ),
  );
}

/** A merchant allowed payouts, with a payout fee, funded the way production funds one: a paid charge. */
async function fundedPayoutMerchant(amountCents: number, feeCents: number): Promise<MerchantCredentials> {
  const m = await createMerchant('Pagadora Smoke', { payouts: true });
  await sequelize.query('UPDATE merchants SET payout_fee_cents = :feeCents WHERE id = :id', {
    replacements: { feeCents, id: m.merchantId },
  });
  await paidCharge(m, { amountCents });
  return m;
}

async function createBatch(m: MerchantCredentials, count: number): Promise<string> {
  const created = await signed('POST', '/v1/payouts/batches', m, {
    idempotencyKey: `smoke-${crypto.randomUUID()}`,
    items: items(count, { amountCents: 1_000 }),
  });
  expect(created.status).toBe(201);
  return created.body.batchId as string;
}

async function paidItems(batchId: string): Promise<number> {
  const [row] = await sequelize.query<{ n: string }>(
    `SELECT count(*) AS n FROM payout_items WHERE batch_id = :batchId AND status = 'PAID'`,
    { type: QueryTypes.SELECT, replacements: { batchId } },
  );
  return Number(row.n);
}

/** COMPLETED with every item PAID, and the provider's own record shows exactly one transfer made for each. */
async function expectBatchCompleted(m: MerchantCredentials, batchId: string, count: number): Promise<void> {
  const done = await waitFor(
    async () => {
      const res = await signed('GET', `/v1/payouts/batches/${batchId}`, m);
      return res.body?.status && res.body.status !== 'PROCESSING' ? res.body : null;
    },
    `batch ${batchId} to finish`,
    240_000,
  );
  expect(done).toMatchObject({ status: 'COMPLETED', paidItems: count, failedItems: 0 });
  const rows = await sequelize.query<{ id: string; status: string }>(
    `SELECT id, status FROM payout_items WHERE batch_id = :batchId`,
    { type: QueryTypes.SELECT, replacements: { batchId } },
  );
  expect(rows).toHaveLength(count);
  // The sandbox's own record of every send it received, by Efí's idEnvio (derived from the item id).
  const made = (await stack.control('GET', '/sandbox/transfers')).body.references as Record<
    string,
    { created: number }
  >;
  for (const item of rows) {
    expect(item.status).toBe('PAID');
    expect(made[idEnvioFor(item.id)]?.created).toBe(1);
  }
}
