/**
 * The webhook floor's worker (scripts/lib/floorBench.ts), as a process of its own so its CPU is a
 * group of its own: it bundles the bench-only workflows (scripts/lib/benchWorkflows), never the
 * gateway's, polls a task queue of its own and runs the floor's one local activity
 * (scripts/lib/floorActivities.ts). Started by the bench under tsx with the worker's own
 * variables: DATABASE_URL (where the rows go), TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE and, on the
 * production engine, TEMPORAL_TLS_CA, TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY,
 * TEMPORAL_TLS_SERVER_NAME. It inherits the bench's GATEWAY_BENCH_RUN, so the watchdog ends it
 * with the run. Prints `floor worker ready` once it polls; SIGTERM (the SDK's own handler) drains
 * and ends it.
 */
import fs from 'node:fs';
import type { TLSConfig } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { Pool } from 'pg';
import { createFloorActivities } from './floorActivities';

/** The client certificate and CA the production engine's mutual TLS asks for; undefined: plain TCP (the dev server). */
function tlsFromEnv(): TLSConfig | undefined {
  const { TEMPORAL_TLS_CA, TEMPORAL_TLS_CERT, TEMPORAL_TLS_KEY, TEMPORAL_TLS_SERVER_NAME } = process.env;
  if (!TEMPORAL_TLS_CERT || !TEMPORAL_TLS_KEY) return undefined;
  return {
    serverNameOverride: TEMPORAL_TLS_SERVER_NAME || undefined,
    serverRootCACertificate: TEMPORAL_TLS_CA ? fs.readFileSync(TEMPORAL_TLS_CA) : undefined,
    clientCertPair: { crt: fs.readFileSync(TEMPORAL_TLS_CERT), key: fs.readFileSync(TEMPORAL_TLS_KEY) },
  };
}

async function main(): Promise<void> {
  const { DATABASE_URL, TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE } = process.env;
  if (!DATABASE_URL || !TEMPORAL_ADDRESS || !TEMPORAL_TASK_QUEUE)
    throw new Error('the floor worker needs DATABASE_URL, TEMPORAL_ADDRESS and TEMPORAL_TASK_QUEUE');
  // Errors only: the SDK's default logs every state change and the bundler's output.
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const pool = new Pool({ connectionString: DATABASE_URL, max: 10 });
  const connection = await NativeConnection.connect({ address: TEMPORAL_ADDRESS, tls: tlsFromEnv() });
  try {
    const worker = await Worker.create({
      connection,
      taskQueue: TEMPORAL_TASK_QUEUE,
      workflowsPath: require.resolve('./benchWorkflows'),
      activities: createFloorActivities(pool),
    });
    const running = worker.run();
    process.stdout.write('floor worker ready\n');
    await running;
  } finally {
    await connection.close();
    await pool.end();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`floor worker failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
