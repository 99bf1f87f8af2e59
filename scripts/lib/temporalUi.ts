/**
 * The Temporal Web UI beside the production engine (the dev server serves its own): the UI server
 * of the version docker-compose runs, built by scripts/ensure-tools.sh, configured by
 * docker/temporal-ui.yaml, on loopback.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { stopChild } from './stopChild';
import { waitForPort } from './ports';
import { projectRoot } from './tools';

const uiBinary = path.join(projectRoot, '.tools', 'temporal-ui-server', 'temporal-ui-server');

export interface TemporalUi {
  url: string;
  process: ChildProcess;
  stop: () => Promise<void>;
}

export async function startTemporalUi(opts: {
  temporalAddress: string;
  port: number;
  logFile?: string;
}): Promise<TemporalUi> {
  if (opts.logFile) fs.mkdirSync(path.dirname(opts.logFile), { recursive: true });
  const out = opts.logFile ? fs.openSync(opts.logFile, 'a') : 'ignore';
  const child = spawn(uiBinary, ['--root', projectRoot, '--config', 'docker', '--env', 'temporal-ui', 'start'], {
    env: { ...process.env, TEMPORAL_ADDRESS: opts.temporalAddress, TEMPORAL_UI_PORT: String(opts.port) },
    stdio: ['ignore', out, out],
  });
  if (typeof out === 'number') fs.closeSync(out);
  await waitForPort(opts.port, 30_000);
  return { url: `http://127.0.0.1:${opts.port}`, process: child, stop: () => stopChild(child) };
}
