/**
 * The production build's sandbox, worker and API as child processes (scripts/lib/productionBuild.ts:
 * `node dist/…` with only the production dependencies), with NODE_ENV=production and the settings
 * production insists on: https base URLs on a host that is not loopback, a client certificate for
 * API Pix, SMTP, the signing keys. The host is this machine's own non-loopback address (else its
 * host name); the sandbox serves https with a certificate of a test CA for it, and the API, which
 * speaks plain http as behind a load balancer, is reached through a small TLS proxy on it: that
 * is PUBLIC_BASE_URL, where the sandbox sends its notifications. The services trust the test CA
 * with NODE_EXTRA_CA_CERTS, as a deployment trusts a private CA. The API, the worker and the CLI
 * reach the production Temporal server's mutual TLS with the client certificate it names
 * (`temporalTlsEnv`: TEMPORAL_TLS_CA, _CERT, _KEY, _SERVER_NAME).
 * The build is GATEWAY_PRODUCTION_BUILD_DIR when the runner made one, else made here.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import dns from 'node:dns/promises';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Agent, fetch } from 'undici';
import {
  builtService,
  prepareProductionBuild,
  runBuiltCli,
  type BuiltServiceName,
} from '../../scripts/lib/productionBuild';
import { startMailSink, type MailSink } from '../../scripts/lib/mailSink';
import { freePort } from '../../scripts/lib/ports';
import { stopChild } from '../../scripts/lib/stopChild';
import { SANDBOX_MERCHANT } from '../../sandbox/payer';
import { pspChargeRef } from '../../core/pix/apiPixIds';
import { createTestCertificates, type TestCertificates } from './testCertificates';
import { readAnswer, recordIssuedSecrets, testLogFile } from './testLogs';
import { freshDatabase } from './integrationStack';

export interface BuiltStackOptions {
  temporalAddress: string;
  /** TEMPORAL_TLS_* of that server's client certificate (production requires one). */
  temporalTlsEnv: Record<string, string>;
  /** A database URL on the test server: the stack gets a fresh database next to it. */
  databaseUrl: string;
  /** The run's migrated template database (faster than migrating an empty one). */
  templateDatabase?: string;
  /** More variables for every service (e.g. payout sizes), over the stack's own. */
  env?: Record<string, string>;
}

export type BuiltStackResponse = { status: number; body: any };

export interface BuiltStack {
  /** The build the processes run (package.json, dist/, production node_modules). */
  dir: string;
  /** The API as merchants reach it: https, through the TLS proxy (PUBLIC_BASE_URL). */
  apiUrl: string;
  /** The sandbox PSP (https): its own API, API Pix and the control routes. */
  sandboxUrl: string;
  databaseUrl: string;
  taskQueue: string;
  /** What each service was started with. */
  env: Record<BuiltServiceName, Record<string, string>>;
  processes: Record<BuiltServiceName, ChildProcess>;
  mail: MailSink;
  /** A request that trusts the stack's CA; JSON bodies parsed, answers scanned for the secrets audit. */
  request: (
    method: string,
    url: string,
    opts?: { body?: unknown; headers?: Record<string, string> },
  ) => Promise<BuiltStackResponse>;
  /** The built operator CLI (dist/cli/gateway.js) with the worker's environment; its stdout. */
  cli: (args: string[]) => Promise<string>;
  /** The payer's button at the sandbox (its control route, with the control token). */
  pay: (chargeId: string) => Promise<BuiltStackResponse>;
  /** Any of the sandbox's control routes (`/sandbox/...`), with the control token: its own records, its faults. */
  control: (method: string, path: string, body?: unknown) => Promise<BuiltStackResponse>;
  /** Sends `signal` (default SIGKILL) to a service and waits for it to exit. */
  kill: (name: BuiltServiceName, signal?: NodeJS.Signals) => Promise<void>;
  /** Starts a service again (after kill) with the same settings and waits until it is ready. */
  restart: (name: BuiltServiceName) => Promise<void>;
  stop: () => Promise<void>;
}

/**
 * Where the build is: the runner's (GATEWAY_PRODUCTION_BUILD_DIR, once GATEWAY_PRODUCTION_BUILD_READY
 * says it is done: scripts/test.ts builds it while the other tests run), else one made now.
 */
export async function productionBuildDir(): Promise<string> {
  const given = process.env.GATEWAY_PRODUCTION_BUILD_DIR;
  if (!given) return (await prepareProductionBuild()).dir;
  const ready = process.env.GATEWAY_PRODUCTION_BUILD_READY;
  if (ready) {
    const deadline = Date.now() + 600_000;
    while (!fs.existsSync(ready)) {
      if (Date.now() > deadline) throw new Error('the runner did not finish the production build in 10 minutes');
      await new Promise((r) => setTimeout(r, 500));
    }
    const state = JSON.parse(fs.readFileSync(ready, 'utf8')) as { ok: boolean; error?: string };
    if (!state.ok) throw new Error(`the runner's production build failed: ${state.error}`);
  }
  return path.resolve(given);
}

export async function startBuiltStack(opts: BuiltStackOptions): Promise<BuiltStack> {
  const dir = await productionBuildDir();
  const host = await publicHost();
  const pki = await createTestCertificates({ serverNames: [host.certName] });
  const ca = new Agent({ connect: { ca: pki.ca.cert } });
  const databaseUrl = await freshDatabase(opts.databaseUrl, opts.templateDatabase);
  const mail = await startMailSink({ port: 0 });
  const proxy = await startTlsProxy(host, pki);
  const apiPort = await freePort();
  const workerHealthPort = await freePort();
  const sandboxPort = await freePort(host.address);
  const sandboxUrl = `https://${host.name}:${sandboxPort}`;
  const taskQueue = `built-${crypto.randomUUID()}`;
  const secret = (bytes = 32) => crypto.randomBytes(bytes).toString('hex');
  const s = {
    apiKey: `sbx_${secret(16)}`,
    callbackSecret: secret(),
    encryptionKey: secret(),
    controlToken: secret(),
    pixClientId: `client-${secret(8)}`,
    pixClientSecret: secret(),
    jwt: secret(),
    receipt: secret(),
    upload: secret(),
    webhook: secret(),
  };
  recordIssuedSecrets('built stack keys', Object.values(s));

  // Only what a deployment sets, plus PATH and the temporary directory: no variable of the test run.
  const common = {
    NODE_ENV: 'production',
    PATH: process.env.PATH ?? '',
    ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
    NODE_EXTRA_CA_CERTS: pki.ca.certFile,
    PROVIDER_API_KEY: s.apiKey,
    PROVIDER_CALLBACK_SECRET: s.callbackSecret,
  };
  const gateway = {
    ...common,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: opts.temporalAddress,
    ...opts.temporalTlsEnv,
    TEMPORAL_TASK_QUEUE: taskQueue,
    CREDENTIALS_ENCRYPTION_KEY: s.encryptionKey,
    // The sandbox's one account holds every merchant's money here: the platform model, said so,
    // since production's default is the connected model (config.ts ACCOUNT_MODEL_DEFAULT).
    ACCOUNT_MODEL_DEFAULT: 'platform',
    PROVIDER_BASE_URL: sandboxUrl,
    PUBLIC_BASE_URL: proxy.url,
    PORT: String(apiPort),
    JWT_SECRETS: s.jwt,
    RECEIPT_SIGNING_KEY: s.receipt,
    UPLOAD_SIGNING_SECRET: s.upload,
    UPLOADS_DIR: path.join(proxy.tmp, 'uploads'),
    SMTP_URL: mail.url,
    PIX_API_BASE_URL: `${sandboxUrl}/api/v2`,
    PIX_API_TOKEN_URL: `${sandboxUrl}/oauth/token`,
    PIX_API_CLIENT_ID: s.pixClientId,
    PIX_API_CLIENT_SECRET: s.pixClientSecret,
    PIX_API_CERT_FILE: pki.client.certFile,
    PIX_API_KEY_FILE: pki.client.keyFile,
    PIX_API_CA_FILE: pki.ca.certFile,
    PIX_RECEIVING_KEY: SANDBOX_MERCHANT.pixKey,
    PIX_WEBHOOK_SECRET: s.webhook,
    // The sandbox token's own account: a Pix Automático cycle charge's recebedor must be it.
    PIX_AUTOMATICO_RECEIVER_ACCOUNT: '1000001',
    PIX_AUTOMATICO_RECEIVER_BRANCH: '0001',
    // Every test call comes from one address; production's 100 a minute would throttle a test.
    RATE_LIMIT_PER_MINUTE: '100000',
    ...opts.env,
  };
  const env: BuiltStack['env'] = {
    sandbox: {
      ...common,
      SANDBOX_HOST: host.address,
      SANDBOX_PORT: String(sandboxPort),
      SANDBOX_CONTROL_TOKEN: s.controlToken,
      SANDBOX_PIX_CLIENT_ID: s.pixClientId,
      SANDBOX_PIX_CLIENT_SECRET: s.pixClientSecret,
      SANDBOX_TLS_CERT_FILE: pki.server.certFile,
      SANDBOX_TLS_KEY_FILE: pki.server.keyFile,
      SANDBOX_DATA_FILE: path.join(proxy.tmp, 'sandbox.jsonl'),
      ...opts.env,
    },
    worker: { ...gateway, WORKER_HEALTH_PORT: String(workerHealthPort) },
    api: gateway,
  };
  proxy.target = apiPort;

  const request: BuiltStack['request'] = async (method, url, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.body !== undefined) headers['content-type'] ??= 'application/json';
    const res = await fetch(url, {
      method,
      headers,
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      dispatcher: ca,
    });
    return { status: res.status, body: readAnswer(await res.text()) };
  };
  const ready: Record<BuiltServiceName, () => Promise<boolean>> = {
    sandbox: async () => (await request('GET', `${sandboxUrl}/health`).catch(() => undefined))?.status === 200,
    worker: async () =>
      (await request('GET', `http://127.0.0.1:${workerHealthPort}/healthz`).catch(() => undefined))?.status === 200,
    api: async () => (await request('GET', `${proxy.url}/ready`).catch(() => undefined))?.status === 200,
  };

  const processes = {} as Record<BuiltServiceName, ChildProcess>;
  const start = async (name: BuiltServiceName) => {
    processes[name] = spawnBuilt(name, dir, env[name]);
    await untilReady(name, processes[name], ready[name]);
  };
  const stopAll = async () => {
    await Promise.all(Object.values(processes).map((child) => stopChild(child)));
    await ca.close();
    const closed = new Promise((r) => proxy.server.close(r));
    // Keep-alive sockets would hold close() open until they time out.
    proxy.server.closeAllConnections();
    await closed;
    await mail.stop();
    pki.remove();
    fs.rmSync(proxy.tmp, { recursive: true, force: true });
  };
  try {
    // The worker registers its webhook with the PSP when it starts: the sandbox first.
    await start('sandbox');
    await Promise.all([start('worker'), start('api')]);
  } catch (err) {
    await stopAll();
    throw err;
  }

  return {
    dir,
    apiUrl: proxy.url,
    sandboxUrl,
    databaseUrl,
    taskQueue,
    env,
    processes,
    mail,
    request,
    cli: (args) => runBuiltCli(dir, env.worker, args),
    pay: (chargeId) =>
      request('POST', `${sandboxUrl}/sandbox/charges/${pspChargeRef(chargeId)}/pay`, {
        body: {},
        headers: { authorization: `Bearer ${s.controlToken}` },
      }),
    control: (method, path, body) =>
      request(method, `${sandboxUrl}${path}`, { body, headers: { authorization: `Bearer ${s.controlToken}` } }),
    kill: async (name, signal = 'SIGKILL') => {
      const child = processes[name];
      if (child.exitCode !== null || child.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill(signal);
      });
    },
    restart: async (name) => {
      await stopChild(processes[name]);
      await start(name);
    },
    stop: stopAll,
  };
}

/** A host name production accepts for this machine: its first non-loopback IPv4 address, else its host name. */
export async function publicHost(): Promise<{
  name: string;
  address: string;
  certName: { type: 'ip' | 'dns'; value: string };
}> {
  for (const addresses of Object.values(os.networkInterfaces()))
    for (const a of addresses ?? [])
      if (a.family === 'IPv4' && !a.internal)
        return { name: a.address, address: a.address, certName: { type: 'ip', value: a.address } };
  const name = os.hostname();
  const { address } = await dns.lookup(name, { family: 4 });
  return { name, address, certName: { type: 'dns', value: name } };
}

/**
 * TLS in front of the API, as a load balancer terminates it: https on the public host, plain http
 * to the API on loopback (`target`, set once the API's port is chosen).
 */
async function startTlsProxy(
  host: { name: string; address: string },
  pki: TestCertificates,
): Promise<{ server: https.Server; url: string; target: number; tmp: string }> {
  const proxy = { target: 0, tmp: fs.mkdtempSync(path.join(os.tmpdir(), 'built-stack-')) };
  const server = https.createServer({ cert: pki.server.cert, key: pki.server.key }, (req, res) => {
    const upstream = http.request(
      { host: '127.0.0.1', port: proxy.target, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => (res.headersSent ? res.destroy() : res.writeHead(502).end()));
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, host.address, resolve));
  const url = `https://${host.name}:${(server.address() as AddressInfo).port}`;
  return Object.assign(proxy, { server, url });
}

function spawnBuilt(name: BuiltServiceName, dir: string, env: Record<string, string>): ChildProcess {
  const { command, args, cwd } = builtService(name, dir);
  // Its log lines go to the run's log directory, out of the test output.
  const file = testLogFile(`built-${name}-${Date.now()}-${process.pid}.log`);
  const out = file ? fs.openSync(file, 'a') : 'ignore';
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', out, out] });
  if (typeof out === 'number') fs.closeSync(out);
  return child;
}

/** Waits until `probe` answers true; a service that exits first fails at once (its log is in the run's directory). */
async function untilReady(
  name: BuiltServiceName,
  child: ChildProcess,
  probe: () => Promise<boolean>,
  timeoutMs = 90_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(
        `the built ${name} exited (${child.exitCode ?? child.signalCode}) before it was ready; see built-${name}-*.log`,
      );
    if (await probe()) return;
    if (Date.now() > deadline) throw new Error(`the built ${name} was not ready within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
