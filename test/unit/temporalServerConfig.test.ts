/**
 * The production Temporal server's own files, read by the server itself (the binary
 * scripts/ensure-tools.sh built, which npm test ensures before jest): the dynamic config
 * docker-compose mounts passes the server's validator with no warning, and
 * docker/temporal-server.yaml renders to PostgreSQL for history and visibility with the shard count
 * the scripts and compose agree on, the password never written out, and mutual TLS required on the
 * frontend and between the services (the server does not render without its certificates).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { TEMPORAL_HISTORY_SHARDS } from '../../scripts/lib/temporalEngine';
import { temporalTlsFiles } from '../../scripts/lib/temporalCertificates';
import { temporalServerDir } from '../../scripts/lib/temporalServer';
import { projectRoot } from '../../cli/lib/projectRoot';

const server = path.join(temporalServerDir, 'temporal-server');

/** Its output and log lines (stdout then stderr); `stdoutOnly`: what it printed alone (render-config's YAML). */
function run(args: string[], env: NodeJS.ProcessEnv = {}, stdoutOnly = false): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(server, args, { cwd: projectRoot, env: { ...process.env, ...env } }, (err, stdout, stderr) =>
      err
        ? reject(new Error(`${args.join(' ')}: ${stderr || err.message}`))
        : resolve(stdoutOnly ? stdout : `${stdout}${stderr}`),
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

/** What scripts/lib/temporalServer.ts sets for the template (the TLS paths need not exist: rendering does not open them). */
function templateEnv(password: string): NodeJS.ProcessEnv {
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
  return {
    TEMPORAL_HISTORY_SHARDS: String(TEMPORAL_HISTORY_SHARDS),
    TEMPORAL_DB: 'temporal',
    TEMPORAL_VISIBILITY_DB: 'temporal_visibility',
    TEMPORAL_SQL_ADDRESS: '127.0.0.1:5432',
    TEMPORAL_SQL_USER: 'temporal',
    SQL_PASSWORD: password,
    ...Object.fromEntries(ports.map((p, i) => [`TEMPORAL_${p}_PORT`, String(20_000 + i)])),
    TEMPORAL_TLS_SERVER_CA_CERT: tls.caFile,
    TEMPORAL_TLS_SERVER_CERT: tls.serverCertFile,
    TEMPORAL_TLS_SERVER_KEY: tls.serverKeyFile,
  };
}
const tls = temporalTlsFiles('/etc/temporal-tls');
const renderConfig = (env: NodeJS.ProcessEnv, stdoutOnly = false) =>
  run(['--root', projectRoot, '--config', 'docker', '--env', 'temporal-server', 'render-config'], env, stdoutOnly);

it('docker/temporal-server.yaml renders to PostgreSQL history and SQL visibility with the agreed shards', async () => {
  const password = 'rendered-password-SHOULD-NOT-APPEAR';
  const rendered = await renderConfig(templateEnv(password));
  expect(rendered).toMatch(new RegExp(`numHistoryShards: ${TEMPORAL_HISTORY_SHARDS}\\b`));
  expect(rendered.match(/pluginName: postgres12/g)).toHaveLength(2);
  expect(rendered).toMatch(/visibilityStore: postgres-visibility/);
  expect(rendered).toMatch(/filepath: docker\/temporal-dynamicconfig.yaml/);
  expect(rendered.includes(password)).toBe(false);
});

it('requires mutual TLS on the frontend and between the services, with the given certificates', async () => {
  const rendered = parse(await renderConfig(templateEnv('pw'), true)) as {
    global: { tls: Record<string, any> };
  };
  const { frontend, internode, systemWorker } = rendered.global.tls;
  const server = {
    certFile: tls.serverCertFile,
    keyFile: tls.serverKeyFile,
    requireClientAuth: true,
    clientCaFiles: [tls.caFile],
  };
  expect(frontend.server).toMatchObject(server);
  expect(internode.server).toMatchObject(server);
  // Internode clients and the server's own system worker check the certificate against the CA and a name it carries.
  expect(internode.client).toMatchObject({ serverName: 'localhost', rootCaFiles: [tls.caFile] });
  expect(systemWorker).toMatchObject({
    certFile: tls.serverCertFile,
    keyFile: tls.serverKeyFile,
    client: { serverName: 'localhost', rootCaFiles: [tls.caFile] },
  });
  expect(internode.client.disableHostVerification).toBeFalsy();
});

it('does not render (so the server does not start) without its TLS files: closed by default', async () => {
  const env = templateEnv('pw');
  for (const missing of ['TEMPORAL_TLS_SERVER_CA_CERT', 'TEMPORAL_TLS_SERVER_CERT', 'TEMPORAL_TLS_SERVER_KEY']) {
    const without = { ...env };
    delete without[missing];
    // The test process's own environment must not fill it in.
    await expect(renderConfig({ ...without, [missing]: '' })).rejects.toThrow(/the frontend requires mutual TLS/);
  }
});
