/**
 * An integration stack shared by the test files of one jest worker: the files that
 * only need merchants of their own (each test makes its own; the tenant-isolation tests prove
 * merchants see nothing of each other) use `sharedIntegrationStack()` instead of starting a stack
 * each. The stack runs in a process of its own (test/support/stackServer.ts), started by the
 * worker's first such file and reused by the next; this file gets a client: its own database
 * connection and Temporal client, and the same helpers as a stack of its own.
 *
 * What a shared stack does not offer (the type says so): the sandbox's and mail sink's in-process
 * state, restarting them, the Express app. Files that need those, the outbox dispatcher, other API
 * settings, or data no other file may touch keep startIntegrationStack().
 * Sandbox faults are reset when a file takes the stack: a file that failed mid-way leaves none.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../../api/app';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { createSequelize } from '../../db/sequelize';
import { testEnv } from './env';
import { stackApi, stackApiDeps, stackPay, type StackClient } from './integrationStack';
import type { SharedStackInfo } from './stackServer';
import { testLogFile } from './testLogs';
import { processAlive } from './processAlive';

export type SharedStack = StackClient;

/** Where the running shared stacks are described (made by test/support/globalSetup.js; not the log directory: they hold keys). */
function stacksDir(): string {
  const dir = process.env.GATEWAY_SHARED_STACKS_DIR;
  if (!dir) throw new Error('run the suite with `npm test` (its global setup makes GATEWAY_SHARED_STACKS_DIR)');
  return dir;
}

export async function sharedIntegrationStack(): Promise<SharedStack> {
  // No Temporal Runtime here: a client needs none, and an installed one that no worker ever
  // releases keeps a file run alone (in band) from exiting. The stack's worker has its own process.
  const info = await serverOfThisWorker();
  const sequelize = createSequelize(info.databaseUrl, { poolMax: 10 });
  const connection = await Connection.connect({ address: testEnv().temporalAddress });
  const temporal = new Client({ connection, namespace: 'default' });
  const faults = await fetch(`${info.sandboxUrl}/sandbox/faults`, { method: 'DELETE' });
  if (!faults.ok) throw new Error(`shared stack: resetting the sandbox's faults answered ${faults.status}`);
  const extraServers: Server[] = [];
  const apiDeps = stackApiDeps(
    {
      sequelize,
      temporal,
      taskQueue: info.taskQueue,
      encryptionKey: info.encryptionKey,
      callbackSecret: info.callbackSecret,
      smtpUrl: info.smtpUrl,
      sandboxUrl: info.sandboxUrl,
      pixWebhookSecret: info.workerEnv.PIX_WEBHOOK_SECRET,
    },
    { publicBaseUrl: info.apiUrl },
  );
  return {
    sequelize,
    temporal,
    taskQueue: info.taskQueue,
    apiUrl: info.apiUrl,
    sandboxUrl: info.sandboxUrl,
    encryptionKey: info.encryptionKey,
    callbackSecret: info.callbackSecret,
    createMerchant: (input = {}) =>
      createMerchantWithCredential(sequelize, { name: 'Loja Teste', ...input }, info.encryptionKey),
    api: stackApi(info.apiUrl),
    pay: stackPay(info.sandboxUrl),
    workerEnv: info.workerEnv,
    extraApi: async (overrides) => {
      const server = await new Promise<Server>((resolve) => {
        const s = createApp({ ...apiDeps, ...overrides }).listen(0, '127.0.0.1', () => resolve(s));
      });
      extraServers.push(server);
      return {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise<void>((r) => server.close(() => r())),
      };
    },
    // This file's client only: the stack goes on serving the worker's next file.
    stop: async () => {
      for (const s of extraServers) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
      await connection.close();
      await sequelize.close();
    },
  };
}

/** The shared stack of this jest worker: the one running, or a new one. */
async function serverOfThisWorker(): Promise<SharedStackInfo> {
  const file = path.join(stacksDir(), `worker-${process.env.JEST_WORKER_ID ?? '1'}.json`);
  if (fs.existsSync(file)) {
    const known = JSON.parse(fs.readFileSync(file, 'utf8')) as SharedStackInfo;
    if (processAlive(known.pid)) return known;
  }
  const info = await startServer();
  fs.writeFileSync(file, JSON.stringify(info), { mode: 0o600 });
  return info;
}

function startServer(): Promise<SharedStackInfo> {
  const root = path.resolve(__dirname, '..', '..');
  const logFile = testLogFile(`shared-stack-${process.env.JEST_WORKER_ID ?? '1'}-${Date.now()}.log`);
  const err = logFile ? fs.openSync(logFile, 'a') : 'ignore';
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'stackServer.ts')], {
    cwd: root,
    env: { ...process.env, NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', err],
  });
  if (typeof err === 'number') fs.closeSync(err);
  return new Promise((resolve, reject) => {
    let out = '';
    const failed = (why: string) =>
      reject(new Error(`shared stack did not start: ${why}${logFile ? `; see ${logFile}` : ''}`));
    child.once('error', (e) => failed(e.message));
    child.once('exit', (code) => failed(`exited with ${code}`));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const newline = out.indexOf('\n');
      if (newline < 0) return;
      child.removeAllListeners('exit');
      // It outlives this file: nothing of it may keep the jest worker's event loop alive.
      child.stdout!.destroy();
      child.unref();
      resolve(JSON.parse(out.slice(0, newline)) as SharedStackInfo);
    });
  });
}
