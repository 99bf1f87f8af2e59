/**
 * The real stack in one test process: the sandbox provider, a Temporal worker on its own task
 * queue (shared dev server), the API on a loopback port, the shared test database. Nothing is
 * mocked. The sandbox is served twice: its API Pix over mutual TLS (certificates of
 * test/support/testCertificates.ts), the gateway configured with the matching PIX_API_* as a real
 * deployment is, and every request it sends there validated against the BCB document (a violation
 * fails the stack's stop and the run, pixApiAudit.ts); its own API (/v1) and the control routes
 * over plain http at `sandboxUrl`, which refuses API Pix, so nothing reaches it around the TLS.
 */
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import http, { type Server } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, makeTelemetryFilterString, type Worker } from '@temporalio/worker';
import type { Sequelize } from 'sequelize';
import { createApp } from '../../api/app';
import { providerFrom } from '../../activities/provider/providerFrom';
import { pspAccountsFrom } from '../../activities/provider/accounts/pspAccounts';
import { loadConfig } from '../../config';
import { pspChargeRef } from '../../core/pix/apiPixIds';
import { listenSandbox } from '../../sandbox/listen';
import { ensurePixWebhook, ensureSubscriptionWebhooks } from '../../workers/ensurePixWebhook';
import { DEV_PIX_CLIENT_ID, DEV_PIX_CLIENT_SECRET } from '../../sandbox/config';
import { SANDBOX_MERCHANT } from '../../sandbox/payer';
import { decryptSecret } from '../../core/crypto/secretBox';
import {
  createMerchantWithCredential,
  type MerchantCredentials,
  type NewMerchant,
} from '../../db/identity/merchantAdmin';
import { createSequelize } from '../../db/sequelize';
import { runMigrations } from '../../db/migrator';
import { createSandboxApp, type SandboxApp, type SandboxAppOptions } from '../../sandbox/app';
import { createGatewayWorker } from '../../workers/createWorker';
import { ensureOutboxDispatcher } from '../../workers/ensureOutboxDispatcher';
import { dispatcherWorkflowId } from '../../workflows/events/definitions';
import { startMailSink, type MailSink } from '../../scripts/lib/mailSink';
import { testEnv } from './env';
import { freshDatabase } from './freshDatabase';

export { freshDatabase };
import { workflowBundle } from './workflowBundle';
import { appendTestLog, readAnswer, recordIssuedSecrets, testLogger } from './testLogs';
import { testCertificates, type PkiFiles } from './testCertificates';
import { PixApiAudit } from './pixApiAudit';

export interface IntegrationStack {
  sequelize: Sequelize;
  temporal: Client;
  taskQueue: string;
  apiUrl: string;
  /** The sandbox's own API (/v1) and control routes (/sandbox), plain http. */
  sandboxUrl: string;
  /** The sandbox's API Pix base (https, mutual TLS): what PIX_API_BASE_URL names. */
  pixApiUrl: string;
  /** What the gateway sent to API Pix so far, checked against the BCB document (Efí's own routes apart, in `efi`). */
  pixApiRequests: () => {
    checked: number;
    violations: string[];
    calls: string[];
    efi: { checked: number; violations: string[]; calls: string[] };
  };
  sandbox: SandboxApp;
  /** The local SMTP sink the worker sends this stack's mail to (read login codes from it). */
  mail: MailSink;
  /** Starts a new mail sink on the port of `mail` (after a test stopped it: an SMTP outage ends). */
  restartMail: () => Promise<MailSink>;
  /**
   * Stops the sandbox and starts it again on the same port from its state file (a provider restart).
   * Overrides play a PSP whose credentials changed: `apiKey` its own API's (/v1), `pixClientId` /
   * `pixClientSecret` the OAuth client of API Pix and Efí's routes (every token is lost in a restart).
   */
  restartSandbox: (
    overrides?: Partial<Pick<SandboxAppOptions, 'apiKey' | 'pixClientId' | 'pixClientSecret'>>,
  ) => Promise<void>;
  /** The API's Express app (its mounted routes drive the generated tests). */
  app: import('express').Express;
  encryptionKey: string;
  callbackSecret: string;
  createMerchant: (input?: Partial<NewMerchant>) => Promise<MerchantCredentials>;
  api: (
    method: string,
    path: string,
    opts?: { creds?: MerchantCredentials; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ) => Promise<{ status: number; body: any; headers: Headers }>;
  /** Pays at the sandbox, optionally as a given payer (sandbox payBodySchema's payer fields). */
  pay: (chargeId: string, payer?: Record<string, unknown>) => Promise<{ status: number; body: any }>;
  /** Environment for a worker process (workers/main.ts) serving this stack's task queue. */
  workerEnv: Record<string, string>;
  /** Another API instance on the same database and Temporal, with some settings changed. */
  extraApi: (
    overrides: Partial<Parameters<typeof createApp>[0]>,
  ) => Promise<{ url: string; close: () => Promise<void> }>;
  stop: () => Promise<void>;
}

/**
 * What a test needs of a stack, whether its own or shared with the other files of its jest worker
 * (test/support/sharedStack.ts): everything but the in-process sandbox and mail sink, their
 * restarts and the Express app. Test helpers take this.
 */
export type StackClient = Omit<
  IntegrationStack,
  'sandbox' | 'mail' | 'restartMail' | 'restartSandbox' | 'app' | 'pixApiUrl' | 'pixApiRequests'
>;

/** A server listening first, its handler set later: an app that must know its own URL can be built in between. */
function listenFirst(): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = http.createServer();
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    );
  });
}

function listen(app: import('express').Express): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    });
  });
}

let runtimeInstalled = false;

/**
 * Worker SDK logs only warnings in tests (one Runtime per process), into the run's log directory:
 * an activity failing on an injected fault is expected there, not a stack trace in the test output.
 */
export function quietTemporalRuntime(): void {
  if (runtimeInstalled) return;
  const file = `temporal-sdk-${process.pid}.log`;
  Runtime.install({
    // The SDK core's own lines (e.g. the time-skipping server's missing capabilities) go to the same file, not the test output.
    telemetryOptions: { logging: { forward: {}, filter: makeTelemetryFilterString({ core: 'WARN', other: 'ERROR' }) } },
    logger: new DefaultLogger('WARN', (entry) => {
      appendTestLog(
        file,
        JSON.stringify({
          level: entry.level,
          time: new Date(Number(entry.timestampNanos / 1_000_000n)).toISOString(),
          message: entry.message,
          meta: entry.meta,
        }),
      );
    }),
  });
  runtimeInstalled = true;
}

export interface StackOptions {
  apiOverrides?: Partial<Parameters<typeof createApp>[0]>;
  /** false: no worker in this process (a test runs its own worker process instead). */
  inProcessWorker?: boolean;
  /** Start the outbox dispatcher, so events become webhook deliveries (only local receivers!). */
  webhookDispatcher?: boolean;
  /**
   * Another Temporal server than the run's dev server: the time-skipping one of a workflow test
   * (useWorkflowEnv), for a scenario that spans months. `client` is the stack's (its API's) client;
   * the worker polls on `workerConnection`. The stack closes neither.
   */
  temporal?: { client: Client; workerConnection: NativeConnection };
  /** The sandbox's clock (default the wall clock): a time-skipping test makes it follow its server's. */
  sandboxNow?: () => Date;
}

export async function startIntegrationStack(opts: StackOptions = {}): Promise<IntegrationStack> {
  const env = testEnv();
  // Each stack gets its own database: its outbox dispatcher and ledger checks see only its own data.
  const databaseUrl = await freshDatabase(env.databaseUrl, env.templateDatabase);
  const sequelize = createSequelize(databaseUrl, { poolMax: 20 });
  // Nothing to do on a copy of the template (already migrated): a check that it is up to date.
  await runMigrations(sequelize);
  const encryptionKey = crypto.randomBytes(32).toString('hex');
  const providerApiKey = `sbx_${crypto.randomBytes(8).toString('hex')}`;
  const callbackSecret = crypto.randomBytes(24).toString('hex');
  const taskQueue = `test-${crypto.randomUUID()}`;

  // The path segment of the API Pix notification URL (PIX_WEBHOOK_SECRET).
  const webhookSecret = crypto.randomBytes(32).toString('hex');

  recordIssuedSecrets(
    'stack keys (provider API key, callback secret, credentials encryption key, API Pix webhook secret)',
    [providerApiKey, callbackSecret, encryptionKey, webhookSecret],
  );
  const pki = await testCertificates();
  const audit = await PixApiAudit.create();
  const sandboxOptions = {
    apiKey: providerApiKey,
    callbackSecret,
    callbackRetryDelaysMs: [50, 100, 200, 400, 800],
    dataFile: path.join(os.tmpdir(), `pix-sandbox-${crypto.randomUUID()}.jsonl`),
    logger: testLogger('sandbox-test'),
    devolucaoSettleMs: 200,
    observeApiRequest: audit.observe,
    ...(opts.sandboxNow ? { now: opts.sandboxNow } : {}),
    // Each sandbox account's own client certificate is signed by the test CA the handshake trusts.
    accountCa: { cert: fs.readFileSync(pki.caFile, 'utf8'), key: fs.readFileSync(pki.caKeyFile, 'utf8') },
  };
  let sandbox = createSandboxApp(sandboxOptions);
  const sandboxListening = await listenPlain(sandbox, 0);
  const pixApiListening = await listenSandbox(sandbox.app, { host: '127.0.0.1', port: 0, tls: sandboxTls(pki) });

  const mail = await startMailSink({ port: 0 });
  const smtpUrl = mail.url;

  const connection = opts.temporal ? null : await Connection.connect({ address: env.temporalAddress });
  const temporal = opts.temporal?.client ?? new Client({ connection: connection!, namespace: 'default' });
  const apiDeps = stackApiDeps(
    {
      sequelize,
      temporal,
      taskQueue,
      encryptionKey,
      callbackSecret,
      smtpUrl,
      sandboxUrl: sandboxListening.url,
      pixWebhookSecret: webhookSecret,
    },
    // On a time-skipping server the API's today is the sandbox's (a first due date after a skip).
    { ...(opts.sandboxNow ? { now: opts.sandboxNow } : {}), ...opts.apiOverrides },
  );
  const apiListening = await listenFirst();
  apiDeps.publicBaseUrl ??= apiListening.url;
  // The PSP balance on /metrics, as api/server.ts gives it: read through the stack's provider (made below).
  let balanceOf: (() => Promise<number | null>) | null = null;
  apiDeps.pspBalance ??= () => (balanceOf ? balanceOf() : Promise.resolve(null));
  const app = createApp(apiDeps);
  apiListening.server.on('request', app);
  const extraServers: Server[] = [];

  const workerEnv = {
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: env.temporalAddress,
    TEMPORAL_TASK_QUEUE: taskQueue,
    PROVIDER_BASE_URL: sandboxListening.url,
    PROVIDER_API_KEY: providerApiKey,
    PROVIDER_CALLBACK_SECRET: callbackSecret,
    PUBLIC_BASE_URL: apiListening.url,
    CREDENTIALS_ENCRYPTION_KEY: encryptionKey,
    SMTP_URL: smtpUrl,
    ...pixApiEnv(pixApiListening.url, pki, webhookSecret),
  };
  // The worker processes' configuration, read the way workers/main.ts reads it.
  const config = loadConfig({ ...process.env, NODE_ENV: 'test', ...workerEnv });
  // A short deadline, as before API Pix: the fault tests' hung calls must give up quickly.
  const workerLogger = testLogger('worker-test');
  const psp = providerFrom({ ...config, provider: { ...config.provider, timeoutMs: 2000 } }, workerLogger);
  const { provider, pixApi } = psp;
  const accounts = pspAccountsFrom(
    { ...config, provider: { ...config.provider, timeoutMs: 2000 } },
    { platform: provider, platformRecurrences: pixApi.automatico, sequelize, logger: workerLogger },
  );
  balanceOf = () => provider.accountBalanceCents();
  // What workers/main.ts does at start: the PSP's notifications come to this stack's API.
  await ensurePixWebhook(pixApi, {
    receivingKey: config.pixApi.receivingKey,
    publicBaseUrl: apiListening.url,
    webhookSecret,
  });
  await ensureSubscriptionWebhooks(pixApi, { publicBaseUrl: apiListening.url, webhookSecret });
  let worker: Worker | undefined;
  let workerConnection: NativeConnection | undefined;
  let running: Promise<void> = Promise.resolve();
  if (opts.inProcessWorker !== false) {
    // Only with a worker: the worker's shutdown releases the Runtime; one installed without a
    // worker is never released and keeps the jest worker from exiting.
    quietTemporalRuntime();
    workerConnection =
      opts.temporal?.workerConnection ?? (await NativeConnection.connect({ address: env.temporalAddress }));
    worker = await createGatewayWorker({
      workflowBundle: await workflowBundle(),
      connection: workerConnection,
      namespace: temporal.options.namespace,
      taskQueue,
      deps: {
        sequelize,
        provider,
        accounts,
        pspConnections: accounts,
        providerCallbackUrl: `${apiListening.url}/webhooks/pix-gateway`,
        secretsKey: Buffer.from(encryptionKey, 'hex'),
        allowPrivateDestinations: true,
        smtpUrl,
        logger: workerLogger,
        automaticoReceiver: config.pixApi.automaticoReceiver,
        defaultPixFee: { bps: config.defaultPixFeeBps, fixedCents: config.defaultPixFeeFixedCents },
      },
    });
    running = worker.run();
  }
  if (opts.webhookDispatcher) await ensureOutboxDispatcher(temporal, taskQueue);

  const api = stackApi(apiListening.url);
  const closeSandbox = async () => {
    sandbox.stop();
    for (const listening of [sandboxListening, pixApiListening]) {
      listening.server.closeAllConnections();
      await new Promise((r) => listening.server.close(r));
    }
  };

  const stack: IntegrationStack = {
    sequelize,
    temporal,
    taskQueue,
    apiUrl: apiListening.url,
    sandboxUrl: sandboxListening.url,
    pixApiUrl: pixApiListening.url,
    pixApiRequests: () => audit.report(),
    sandbox,
    mail,
    restartMail: async () => {
      await stack.mail.stop();
      stack.mail = await startMailSink({ port: stack.mail.port });
      return stack.mail;
    },
    restartSandbox: async (overrides = {}) => {
      await closeSandbox();
      // A credentials override plays a provider whose keys were rotated: every call of ours gets 401.
      sandbox = createSandboxApp({ ...sandboxOptions, ...overrides });
      stack.sandbox = sandbox;
      sandboxListening.server = (await listenPlain(sandbox, Number(new URL(sandboxListening.url).port))).server;
      pixApiListening.server = (
        await listenSandbox(sandbox.app, {
          host: '127.0.0.1',
          port: Number(new URL(pixApiListening.url).port),
          tls: sandboxTls(pki),
        })
      ).server;
      // Let clients notice their pooled keep-alive sockets to the old server are gone.
      await new Promise((r) => setTimeout(r, 200));
    },
    app,
    encryptionKey,
    callbackSecret,
    createMerchant: (input = {}) =>
      createMerchantWithCredential(sequelize, { name: 'Loja Teste', ...input }, encryptionKey),
    api,
    pay: stackPay(sandboxListening.url),
    workerEnv,
    extraApi: async (overrides) => {
      const extra = await listen(createApp({ ...apiDeps, ...overrides }));
      extraServers.push(extra.server);
      return { url: extra.url, close: () => new Promise<void>((r) => extra.server.close(() => r())) };
    },
    stop: async () => {
      await recordStoredSecrets(sequelize, encryptionKey).catch((err) =>
        appendTestLog('harness.log', `secrets audit: could not read stored secrets: ${String(err)}`),
      );
      for (const s of extraServers) s.closeAllConnections();
      if (opts.webhookDispatcher)
        await temporal.workflow
          .getHandle(dispatcherWorkflowId(taskQueue))
          .terminate('test finished')
          .catch(() => undefined);
      worker?.shutdown();
      await running;
      if (!opts.temporal) await workerConnection?.close();
      await new Promise((r) => apiListening.server.close(r));
      await psp.close();
      await accounts.close();
      await closeSandbox();
      await stack.mail.stop();
      fs.rmSync(sandboxOptions.dataFile, { force: true });
      await connection?.close();
      await sequelize.close();
      // Last, once everything is released: a request that broke the BCB document fails the file.
      audit.assertClean();
    },
  };
  return stack;
}

/** What the API of a test stack runs with (an extra API instance changes some of it). */
export function stackApiDeps(
  s: {
    sequelize: Sequelize;
    temporal: Client;
    taskQueue: string;
    encryptionKey: string;
    callbackSecret: string;
    smtpUrl: string;
    sandboxUrl: string;
    pixWebhookSecret: string;
  },
  overrides: Partial<Parameters<typeof createApp>[0]> = {},
): Parameters<typeof createApp>[0] {
  return {
    sequelize: s.sequelize,
    temporal: s.temporal,
    taskQueue: s.taskQueue,
    logger: testLogger('api-test'),
    credentialsEncryptionKey: s.encryptionKey,
    providerCallbackSecret: s.callbackSecret,
    pixWebhookSecret: s.pixWebhookSecret,
    defaultFee: { bps: 100, fixedCents: 0 },
    defaultChargeTtlSeconds: 3600,
    idempotencyTtlHours: 24,
    rateLimitPerMinute: 1_000_000,
    allowPrivateWebhookDestinations: true,
    smtpUrl: s.smtpUrl,
    // The checkout page's "Simular pagamento" pays at this stack's sandbox.
    paymentSimulator: { sandboxBaseUrl: s.sandboxUrl },
    // argon2id at a test cost (core/identity/passwords.ts): the OWASP cost made sign-ups and logins
    // the suite's costliest requests; test/unit/passwords.test.ts keeps the OWASP parameters.
    auth: { jwtSecrets: [], secureCookies: false, passwordHashing: 'test' },
    ...overrides,
  };
}

/** Calls the stack's API (client credentials when given); answers are scanned for secrets to audit. */
export function stackApi(apiUrl: string): IntegrationStack['api'] {
  return async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.creds) {
      headers['x-client-id'] = o.creds.clientId;
      headers['x-client-secret'] = o.creds.clientSecret;
    }
    let body: string | undefined = o.rawBody;
    if (o.body !== undefined) body = JSON.stringify(o.body);
    if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    const res = await fetch(`${apiUrl}${path}`, { method, headers, body });
    return { status: res.status, body: readAnswer(await res.text()), headers: res.headers };
  };
}

/** The payer's button at the stack's sandbox: a charge of ours is the cob of its txid there. */
export function stackPay(sandboxUrl: string): IntegrationStack['pay'] {
  return async (chargeId, payer) => {
    const res = await fetch(`${sandboxUrl}/sandbox/charges/${pspChargeRef(chargeId)}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payer ? { payer } : {}),
    });
    return { status: res.status, body: await res.json() };
  };
}

/**
 * The sandbox's own API and control routes over plain http. API Pix is refused here (421): the
 * gateway must reach it through the mutual-TLS socket only, as it would a real PSP.
 */
function listenPlain(sandbox: SandboxApp, port: number): Promise<{ server: Server; url: string }> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path.startsWith('/api/') || path.startsWith('/oauth/')) {
      res
        .writeHead(421, { 'content-type': 'text/plain' })
        .end('API Pix is served over mutual TLS in test stacks (pixApiUrl)\n');
      return;
    }
    sandbox.app(req, res);
  });
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () =>
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

/** The sandbox's certificate, and mutual TLS: a client certificate signed by the test CA is required. */
function sandboxTls(pki: PkiFiles): { cert: string; key: string; clientCa: string } {
  return {
    cert: fs.readFileSync(pki.serverCertFile, 'utf8'),
    key: fs.readFileSync(pki.serverKeyFile, 'utf8'),
    clientCa: fs.readFileSync(pki.caFile, 'utf8'),
  };
}

/** The gateway's API Pix configuration for this stack's sandbox, as a real deployment sets it. */
function pixApiEnv(pixApiUrl: string, pki: PkiFiles, webhookSecret: string): Record<string, string> {
  return {
    PIX_API_BASE_URL: `${pixApiUrl}/api/v2`,
    PIX_API_TOKEN_URL: `${pixApiUrl}/oauth/token`,
    PIX_API_CLIENT_ID: DEV_PIX_CLIENT_ID,
    PIX_API_CLIENT_SECRET: DEV_PIX_CLIENT_SECRET,
    PIX_API_CERT_FILE: pki.clientCertFile,
    PIX_API_KEY_FILE: pki.clientKeyFile,
    PIX_API_CA_FILE: pki.caFile,
    PIX_RECEIVING_KEY: SANDBOX_MERCHANT.pixKey,
    PIX_WEBHOOK_SECRET: webhookSecret,
    // The sandbox token's own account: a cycle charge's recebedor must be it.
    PIX_AUTOMATICO_RECEIVER_ACCOUNT: '1000001',
    PIX_AUTOMATICO_RECEIVER_BRANCH: '0001',
    PIX_AUTOMATICO_RECEIVER_ACCOUNT_TYPE: 'CHECKING',
  };
}

/** Every client and webhook secret this stack's database holds, for the end-of-run secrets audit. */
async function recordStoredSecrets(sequelize: Sequelize, encryptionKey: string): Promise<void> {
  const key = Buffer.from(encryptionKey, 'hex');
  const open = (box: string | null) => (box ? decryptSecret(box, key) : undefined);
  const [credentials] = (await sequelize.query('SELECT secret_ciphertext FROM api_credentials')) as [
    Array<{ secret_ciphertext: string }>,
    unknown,
  ];
  recordIssuedSecrets(
    'client secrets',
    credentials.map((r) => open(r.secret_ciphertext)),
  );
  const [webhooks] = (await sequelize.query(
    'SELECT secret_ciphertext, previous_secret_ciphertext FROM webhook_endpoints',
  )) as [Array<{ secret_ciphertext: string; previous_secret_ciphertext: string | null }>, unknown];
  recordIssuedSecrets(
    'webhook secrets',
    webhooks.flatMap((r) => [open(r.secret_ciphertext), open(r.previous_secret_ciphertext)]),
  );
}
