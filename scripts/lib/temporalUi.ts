/**
 * The Temporal Web UI beside the production engine (the dev server serves its own): the UI server
 * of the version docker-compose runs, built by scripts/ensure-tools.sh, configured by
 * docker/temporal-ui.yaml: on loopback unless `host` says otherwise, and a client of the frontend's
 * mutual TLS with the client certificate (scripts/lib/temporalCertificates.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { stopChild } from './stopChild';
import { waitForPort } from './ports';
import { temporalClientEnv, type TemporalTlsFiles } from './temporalCertificates';
import { projectRoot } from '../../cli/lib/projectRoot';

const uiBinary = path.join(projectRoot, '.tools', 'temporal-ui-server', 'temporal-ui-server');

export interface TemporalUi {
  url: string;
  process: ChildProcess;
  stop: () => Promise<void>;
}

export async function startTemporalUi(opts: {
  temporalAddress: string;
  /** The CA and client certificate it connects with. */
  tls: TemporalTlsFiles;
  port: number;
  /** Where it listens; default 127.0.0.1. */
  host?: string;
  logFile?: string;
}): Promise<TemporalUi> {
  const host = opts.host ?? '127.0.0.1';
  if (opts.logFile) fs.mkdirSync(path.dirname(opts.logFile), { recursive: true });
  const out = opts.logFile ? fs.openSync(opts.logFile, 'a') : 'ignore';
  const child = spawn(uiBinary, ['--root', projectRoot, '--config', 'docker', '--env', 'temporal-ui', 'start'], {
    env: {
      ...process.env,
      ...temporalClientEnv(opts.tls),
      TEMPORAL_ADDRESS: opts.temporalAddress,
      TEMPORAL_UI_HOST: host,
      TEMPORAL_UI_PORT: String(opts.port),
    },
    stdio: ['ignore', out, out],
  });
  if (typeof out === 'number') fs.closeSync(out);
  let exited = false;
  child.once('exit', () => (exited = true));
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  try {
    await waitForPort(opts.port, 30_000, reachable);
  } catch (err) {
    if (exited) throw new Error(`the Temporal Web UI exited early${opts.logFile ? `; see ${opts.logFile}` : ''}`);
    throw err;
  }
  const shown = reachable.includes(':') ? `[${reachable}]` : reachable;
  return { url: `http://${shown}:${opts.port}`, process: child, stop: () => stopChild(child) };
}
