/**
 * The API process stops once whatever signals arrive (Ctrl-C's SIGINT to the group, the
 * supervisor's SIGTERM, another Ctrl-C): a request in flight is answered before the database is
 * closed, and the process exits 0.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { QueryTypes } from 'sequelize';
import { waitFor } from '../support/env';
import { startIntegrationStack, stackApi, type IntegrationStack } from '../support/integrationStack';
import { setFaults } from '../support/payouts';
import { testLogDir, testLogFile } from '../support/testLogs';

jest.setTimeout(120_000);

let stack: IntegrationStack;
let api: ChildProcess | undefined;

beforeAll(async () => {
  stack = await startIntegrationStack();
});

afterAll(async () => {
  if (api && api.exitCode === null && api.signalCode === null) api.kill('SIGKILL');
  if (stack) await setFaults(stack, null);
  await stack?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** api/server.ts as its own process, on this stack's database, Temporal and sandbox. */
function spawnApiProcess(port: number): ChildProcess {
  const root = path.resolve(__dirname, '..', '..');
  const file = testLogFile(`api-process-${Date.now()}-${process.pid}.log`);
  const out = file ? fs.openSync(file, 'a') : 'ignore';
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'api', 'server.ts')], {
    cwd: root,
    env: { ...process.env, ...stack.workerEnv, NODE_ENV: 'test', HOST: '127.0.0.1', PORT: String(port) },
    stdio: ['ignore', out, out],
  });
  if (typeof out === 'number') fs.closeSync(out);
  return child;
}

function pinoLog(child: ChildProcess): string {
  const dir = testLogDir();
  if (!dir) throw new Error('run with `npm test` (scripts/test.ts): the API logs into GATEWAY_TEST_LOG_DIR');
  const file = path.join(dir, `pino-${child.pid}.log`);
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
}

it('answers the request in flight, then exits 0, on SIGINT, SIGTERM and SIGINT again', async () => {
  const seller = await stack.createMerchant({ name: 'Loja da Parada' });
  const port = await freePort();
  const child = spawnApiProcess(port);
  api = child;
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await waitFor(async () => pinoLog(child).includes('"api listening"'), 'the API to listen', 90_000);

  // Every provider call takes 0.8 s (under the stack worker's 2 s provider deadline): the charge
  // is still being issued when the signals come.
  await setFaults(stack, { latencyMs: 800 });
  const key = `key-${crypto.randomUUID()}`;
  const answer = stackApi(`http://127.0.0.1:${port}`)('POST', '/sellers/pix', {
    creds: seller,
    body: { amountCents: 1_000 },
    headers: { 'x-idempotency-key': key },
  });
  // The request is in its handler once it holds its idempotency key.
  await waitFor(
    async () =>
      (
        await stack.sequelize.query(`SELECT 1 FROM idempotency_records WHERE key = :key`, {
          replacements: { key },
          type: QueryTypes.SELECT,
        })
      ).length > 0,
    'the request to claim its key',
    90_000,
  );

  child.kill('SIGINT');
  child.kill('SIGTERM');
  await sleep(200);
  if (!pinoLog(child).includes('"api stopped"')) child.kill('SIGINT');

  const res = await answer.catch((err: Error) => ({ status: `failed: ${err.message}`, body: null }));
  expect(res.status).toBe(201);
  expect(await exit).toEqual({ code: 0, signal: null });
  expect(pinoLog(child)).toContain('"api stopped"');
});
