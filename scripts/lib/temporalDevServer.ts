/** Runs the Temporal CLI dev server (server + optional Web UI) as a child process. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { searchAttributeRegistrations } from '../../core/temporal/searchAttributes';
import { stopChild } from './stopChild';
import { temporalCliPath } from './tools';

export interface TemporalDevServer {
  address: string;
  process: ChildProcess;
  /**
   * Starts the dev server again after it died, with the same flags and database file (an
   * in-memory one starts empty); resolves once it answers. The running process when it is alive.
   */
  start: () => Promise<ChildProcess>;
  stop: () => Promise<void>;
}

export async function startTemporalDevServer(opts: {
  port: number;
  uiPort?: number;
  dbFile?: string;
  logFile?: string;
}): Promise<TemporalDevServer> {
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(opts.port),
    '--log-level',
    'error',
    '--namespace',
    'default',
  ];
  if (opts.uiPort) args.push('--ui-port', String(opts.uiPort));
  else args.push('--headless');
  if (opts.dbFile) {
    fs.mkdirSync(path.dirname(opts.dbFile), { recursive: true });
    args.push('--db-filename', opts.dbFile);
  }
  for (const sa of searchAttributeRegistrations) args.push('--search-attribute', sa);
  // Update-With-Start and updates are on by default in server 1.29; set explicitly so an older CLI fails loudly.
  args.push('--dynamic-config-value', 'frontend.enableExecuteMultiOperation=true');
  args.push('--dynamic-config-value', 'frontend.enableUpdateWorkflowExecution=true');
  // Eager execution (docs/benchmarks.md): the server hands a worker the activity it just
  // scheduled, and a worker that starts a workflow its first task, in the answer to that very
  // call, instead of through the task queue. Off by default in the server; the SDK asks for it.
  args.push('--dynamic-config-value', 'system.enableActivityEagerExecution=true');
  args.push('--dynamic-config-value', 'system.enableEagerWorkflowStart=true');
  const address = `127.0.0.1:${opts.port}`;
  let child = await launch(args, address, opts.logFile);
  return {
    address,
    // The current process: a new one after start().
    get process() {
      return child;
    },
    start: async () => {
      if (child.exitCode === null && child.signalCode === null) return child;
      child = await launch(args, address, opts.logFile);
      return child;
    },
    stop: () => stopChild(child),
  };
}

async function launch(args: string[], address: string, logFile?: string): Promise<ChildProcess> {
  const out = logFile ? fs.openSync(logFile, 'a') : 'ignore';
  const child = spawn(temporalCliPath, args, { stdio: ['ignore', out, out] });
  if (typeof out === 'number') fs.closeSync(out);
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited) throw new Error(`temporal dev server exited early${logFile ? `; see ${logFile}` : ''}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1000 });
      await connection.workflowService.getSystemInfo({});
      await connection.close();
      return child;
    } catch {
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        throw new Error('temporal dev server did not become ready in 60 s');
      }
      await new Promise((r) => setTimeout(r, 300));
    }
  }
}
