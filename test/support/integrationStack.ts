/**
 * The real stack in one test process: the sandbox provider over HTTP, a Temporal worker on its
 * own task queue (shared dev server), the API on a loopback port, the shared test database.
 * Nothing is mocked.
 */
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import type { Sequelize } from 'sequelize';
import { createApp } from '../../api/app';
import { HttpPixProvider } from '../../activities/provider/httpPixProvider';
import { createLogger } from '../../core/logger';
import { createMerchantWithCredential, type MerchantCredentials, type NewMerchant } from '../../db/merchantAdmin';
import { createSequelize } from '../../db/sequelize';
import { createSandboxApp, type SandboxApp } from '../../sandbox/app';
import { createGatewayWorker } from '../../workers/createWorker';
import { testEnv } from './env';

export interface IntegrationStack {
  sequelize: Sequelize;
  temporal: Client;
  taskQueue: string;
  apiUrl: string;
  sandboxUrl: string;
  sandbox: SandboxApp;
  encryptionKey: string;
  callbackSecret: string;
  createMerchant: (input?: Partial<NewMerchant>) => Promise<MerchantCredentials>;
  api: (method: string, path: string, opts?: { creds?: MerchantCredentials; body?: unknown; rawBody?: string; headers?: Record<string, string> }) => Promise<{ status: number; body: any; headers: Headers }>;
  pay: (chargeId: string) => Promise<{ status: number; body: any }>;
  /** Another API instance on the same database and Temporal, with some settings changed. */
  extraApi: (overrides: Partial<Parameters<typeof createApp>[0]>) => Promise<{ url: string; close: () => Promise<void> }>;
  stop: () => Promise<void>;
}

function listen(app: import('express').Express): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
    });
  });
}

let runtimeInstalled = false;

/** Worker SDK logs only warnings in tests (one Runtime per process). */
export function quietTemporalRuntime(): void {
  if (runtimeInstalled) return;
  Runtime.install({ logger: new DefaultLogger('WARN') });
  runtimeInstalled = true;
}

export async function startIntegrationStack(opts: { apiOverrides?: Partial<Parameters<typeof createApp>[0]> } = {}): Promise<IntegrationStack> {
  quietTemporalRuntime();
  const env = testEnv();
  const sequelize = createSequelize(env.databaseUrl, { poolMax: 20 });
  const encryptionKey = crypto.randomBytes(32).toString('hex');
  const providerApiKey = `sbx_${crypto.randomBytes(8).toString('hex')}`;
  const callbackSecret = crypto.randomBytes(24).toString('hex');
  const taskQueue = `test-${crypto.randomUUID()}`;

  const sandbox = createSandboxApp({ apiKey: providerApiKey, callbackSecret, callbackRetryDelaysMs: [50, 100, 200, 400, 800] });
  const sandboxListening = await listen(sandbox.app);

  const connection = await Connection.connect({ address: env.temporalAddress });
  const temporal = new Client({ connection, namespace: 'default' });
  const apiDeps: Parameters<typeof createApp>[0] = {
    sequelize,
    temporal,
    taskQueue,
    logger: createLogger('api-test'),
    credentialsEncryptionKey: encryptionKey,
    providerCallbackSecret: callbackSecret,
    defaultFee: { bps: 100, fixedCents: 0 },
    defaultChargeTtlSeconds: 3600,
    idempotencyTtlHours: 24,
    rateLimitPerMinute: 1_000_000,
    allowPrivateWebhookDestinations: true,
    ...opts.apiOverrides,
  };
  const apiListening = await listen(createApp(apiDeps));
  const extraServers: Server[] = [];

  const workerConnection = await NativeConnection.connect({ address: env.temporalAddress });
  const worker: Worker = await createGatewayWorker({
    connection: workerConnection,
    namespace: 'default',
    taskQueue,
    deps: {
      sequelize,
      provider: new HttpPixProvider({ baseUrl: sandboxListening.url, apiKey: providerApiKey, timeoutMs: 2000 }),
      providerCallbackUrl: `${apiListening.url}/webhooks/pix-gateway`,
    },
  });
  const running = worker.run();

  const api: IntegrationStack['api'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.creds) {
      headers['x-client-id'] = o.creds.clientId;
      headers['x-client-secret'] = o.creds.clientSecret;
    }
    let body: string | undefined = o.rawBody;
    if (o.body !== undefined) body = JSON.stringify(o.body);
    if (body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
    const res = await fetch(`${apiListening.url}${path}`, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };

  return {
    sequelize,
    temporal,
    taskQueue,
    apiUrl: apiListening.url,
    sandboxUrl: sandboxListening.url,
    sandbox,
    encryptionKey,
    callbackSecret,
    createMerchant: (input = {}) => createMerchantWithCredential(sequelize, { name: 'Loja Teste', ...input }, encryptionKey),
    api,
    pay: async (chargeId) => {
      const res = await fetch(`${sandboxListening.url}/sandbox/charges/${chargeId}/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      return { status: res.status, body: await res.json() };
    },
    extraApi: async (overrides) => {
      const extra = await listen(createApp({ ...apiDeps, ...overrides }));
      extraServers.push(extra.server);
      return { url: extra.url, close: () => new Promise<void>((r) => extra.server.close(() => r())) };
    },
    stop: async () => {
      for (const s of extraServers) s.closeAllConnections();
      worker.shutdown();
      await running;
      await workerConnection.close();
      await new Promise((r) => apiListening.server.close(r));
      sandbox.stop();
      await new Promise((r) => sandboxListening.server.close(r));
      await connection.close();
      await sequelize.close();
    },
  };
}
