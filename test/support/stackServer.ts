/**
 * The process of a shared integration stack (test/support/sharedStack.ts): one per jest worker,
 * serving every file of that worker that only needs a merchant of its own.
 *   node --import tsx test/support/stackServer.ts
 * Starts the stack as startIntegrationStack does (sandbox, mail sink, API, Temporal worker, a
 * database copied from the run's template), prints one line of JSON with what a client needs,
 * and stops on SIGTERM, or by itself once the jest worker that started it is gone.
 */
import { startIntegrationStack } from './integrationStack';
import { processAlive } from './processAlive';

export interface SharedStackInfo {
  pid: number;
  databaseUrl: string;
  taskQueue: string;
  apiUrl: string;
  sandboxUrl: string;
  encryptionKey: string;
  callbackSecret: string;
  smtpUrl: string;
  workerEnv: Record<string, string>;
}

async function main(): Promise<void> {
  const parent = process.ppid;
  const stack = await startIntegrationStack();
  const info: SharedStackInfo = {
    pid: process.pid,
    databaseUrl: stack.workerEnv.DATABASE_URL,
    taskQueue: stack.taskQueue,
    apiUrl: stack.apiUrl,
    sandboxUrl: stack.sandboxUrl,
    encryptionKey: stack.encryptionKey,
    callbackSecret: stack.callbackSecret,
    smtpUrl: stack.workerEnv.SMTP_URL,
    workerEnv: stack.workerEnv,
  };
  process.stdout.write(`${JSON.stringify(info)}\n`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await stack.stop().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
  // An interrupted run never reaches the global teardown: stop with the worker that started us.
  setInterval(() => {
    if (!processAlive(parent)) void stop();
  }, 1_000);
}

main().catch((err: unknown) => {
  process.stderr.write(
    `shared stack failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
