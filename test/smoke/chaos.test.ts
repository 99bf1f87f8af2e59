/**
 * The short chaos run in the suite: `npm run chaos` itself (scripts/chaos.ts, CHAOS_PROFILE=short,
 * 60 s, a fixed seed) — the production stack from the production build with two workers, a seeded
 * mixed load, and one round of faults: SIGKILL to the API, both workers, the sandbox, the Temporal
 * server and PostgreSQL, and a worker paused past its heartbeat timeout. It passes only when every
 * killed part came back and the audit (`gateway audit`) found nothing: no charge paid twice or
 * lost, no transfer sent twice or left reserved, no workflow stuck, the ledger balanced. The
 * report is kept with the run's logs.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../cli/lib/projectRoot';
import { productionBuildDir } from '../support/builtStack';
import { testLogFile } from '../support/testLogs';

// The run's 60 s of load, a fault round that may outlast it on a busy host, the quiet wait and the audit.
jest.setTimeout(1_200_000);

/** Fixed, so the suite's schedule is the same on every run; CHAOS_SEED replays another. */
const SEED = Number(process.env.CHAOS_SEED || 20261128);
// Under the project (not the OS temporary folder): PostgreSQL runs as its own user when we are root.
const dir = path.join(projectRoot, '.data', `chaos-${process.pid}`);

afterAll(() => {
  fs.rmSync(path.join(dir, 'data'), { recursive: true, force: true });
});

it('kills every part of the production stack under load, and the audit finds nothing lost or paid twice', async () => {
  const logFile = testLogFile(`chaos-${process.pid}.log`);
  // The runner builds it beside the first files: wait until it is done (or make one when run alone).
  const buildDir = await productionBuildDir();
  const {
    DATABASE_URL: _run,
    MIGRATION_DATABASE_URL: _runMigration,
    GATEWAY_PRODUCTION_BUILD_READY: _buildReady,
    ...inherited
  } = process.env;
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'scripts', 'chaos.ts')], {
    cwd: projectRoot,
    env: {
      ...inherited,
      GATEWAY_PRODUCTION_BUILD_DIR: buildDir,
      CHAOS_SECONDS: '60',
      CHAOS_SEED: String(SEED),
      CHAOS_PROFILE: 'short',
      CHAOS_DIR: dir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (logFile) fs.appendFileSync(logFile, chunk);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const report = fs.existsSync(path.join(dir, 'latest.md')) ? fs.readFileSync(path.join(dir, 'latest.md'), 'utf8') : '';
  if (code !== 0) throw new Error(`npm run chaos exited ${code}:\n${report || output.slice(-8_000)}`);
  expect(report).toMatch(new RegExp(`^# Chaos run, seed ${SEED}: CLEAN`));
  for (const part of ['api', 'worker-1', 'worker-2', 'sandbox', 'temporal', 'postgres'])
    expect(report).toMatch(new RegExp(`\\| ${part} \\| [1-9]`));
});
