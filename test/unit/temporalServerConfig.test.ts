/**
 * The production Temporal server's own files, read by the server itself (the binary
 * scripts/ensure-tools.sh built, which npm test ensures before jest): the dynamic config
 * docker-compose mounts passes the server's validator with no warning, and
 * docker/temporal-server.yaml renders to PostgreSQL for history and visibility with the shard count
 * the scripts and compose agree on, the password never written out.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEMPORAL_HISTORY_SHARDS } from '../../scripts/lib/temporalEngine';
import { temporalServerDir } from '../../scripts/lib/temporalServer';
import { projectRoot } from '../../scripts/lib/tools';

const server = path.join(temporalServerDir, 'temporal-server');

function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(server, args, { cwd: projectRoot, env: { ...process.env, ...env } }, (err, stdout, stderr) =>
      err ? reject(new Error(`${args.join(' ')}: ${stderr || err.message}`)) : resolve(`${stdout}${stderr}`),
    ),
  );
}

it('the dynamic config passes the server validator without a warning (and the validator does warn)', async () => {
  expect(fs.existsSync(server)).toBe(true);
  expect(await run(['validate-dynamic-config', 'docker/temporal-dynamicconfig.yaml'])).not.toMatch(/warning/);
  const bad = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dynamicconfig-')), 'bad.yaml');
  fs.writeFileSync(
    bad,
    'system.enableActivityEagerExecution:\n  - value: "sometimes"\nsystem.noSuchKey:\n  - value: 1\n',
  );
  expect(await run(['validate-dynamic-config', bad])).toMatch(/warning: unregistered key "system.noSuchKey"/);
});

it('docker/temporal-server.yaml renders to PostgreSQL history and SQL visibility with the agreed shards', async () => {
  const password = 'rendered-password-SHOULD-NOT-APPEAR';
  const ports = [
    'FRONTEND',
    'FRONTEND_MEMBERSHIP',
    'FRONTEND_HTTP',
    'MATCHING',
    'MATCHING_MEMBERSHIP',
    'HISTORY',
    'HISTORY_MEMBERSHIP',
    'WORKER',
    'WORKER_MEMBERSHIP',
  ];
  const rendered = await run(
    ['--root', projectRoot, '--config', 'docker', '--env', 'temporal-server', 'render-config'],
    {
      TEMPORAL_HISTORY_SHARDS: String(TEMPORAL_HISTORY_SHARDS),
      TEMPORAL_DB: 'temporal',
      TEMPORAL_VISIBILITY_DB: 'temporal_visibility',
      TEMPORAL_SQL_ADDRESS: '127.0.0.1:5432',
      TEMPORAL_SQL_USER: 'temporal',
      SQL_PASSWORD: password,
      ...Object.fromEntries(ports.map((p, i) => [`TEMPORAL_${p}_PORT`, String(20_000 + i)])),
    },
  );
  expect(rendered).toMatch(new RegExp(`numHistoryShards: ${TEMPORAL_HISTORY_SHARDS}\\b`));
  expect(rendered.match(/pluginName: postgres12/g)).toHaveLength(2);
  expect(rendered).toMatch(/visibilityStore: postgres-visibility/);
  expect(rendered).toMatch(/filepath: docker\/temporal-dynamicconfig.yaml/);
  expect(rendered.includes(password)).toBe(false);
});
