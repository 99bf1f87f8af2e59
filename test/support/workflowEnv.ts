/**
 * The set-up every workflow test file had written for itself: a Temporal server to run on (the
 * Java time-skipping server, once per file), a Sequelize on the run's database, and workers of
 * the gateway's workflows on a fresh task queue each. Call `useWorkflowEnv()` at the top level of
 * a test file: it registers the beforeAll/afterAll that start and stop them, and answers an object
 * whose getters read them inside hooks and tests.
 *
 * Workers load the run's one workflow bundle (test/support/workflowBundle.ts), never
 * `workflowsPath` for the gateway's own workflows, so nothing is bundled again per worker. A file
 * that runs a test-only workflow module (test/support/workflows/) passes its `workflowsPath` for
 * that worker only.
 */
import crypto from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Sequelize } from 'sequelize';
import { createActivities, type Activities, type ActivityDeps } from '../../activities';
import { createSequelize } from '../../db/sequelize';
import { runMigrations } from '../../db/migrator';
import { testEnv } from './env';
import { freshDatabase } from './freshDatabase';
import { FakePixProvider } from './fakePixProvider';
import { createTimeSkippingEnv } from './timeSkipping';
import { testLogger } from './testLogs';
import { workflowBundle } from './workflowBundle';

export interface WorkflowEnvOptions {
  /**
   * What Temporal server the file's workers and client talk to:
   * - `time-skipping` (default): the Java time-skipping test server, started once for the file;
   * - `dev`: the run's Temporal dev server (real signal and history behaviour), through a client
   *   and a worker connection opened for the file;
   * - `none`: no Temporal at all, for files that only need the database.
   */
  server?: 'time-skipping' | 'dev' | 'none';
  /** The Sequelize pool's size (createSequelize's default otherwise). */
  poolMax?: number;
  /**
   * A database of the file's own (a copy of the run's migrated template) instead of the run's
   * shared one: for a file that runs the outbox dispatcher, whose rounds take every merchant's
   * undispatched events. On the shared database it would take another file's events and start
   * their deliveries on its own task queue, where nothing polls once its test is over.
   */
  ownDatabase?: boolean;
}

export interface TestWorkerOptions {
  /** The task queue's name is `<prefix>-<uuid>` (default `wf`). */
  prefix?: string;
  /** A test-only workflow module (resolved path) instead of the run's bundle of the gateway's workflows. */
  workflowsPath?: string;
}

export interface WorkflowEnv {
  /** The time-skipping server (only with `server: 'time-skipping'`). */
  readonly env: TestWorkflowEnvironment;
  /** A Sequelize on the run's database (or the file's own: `ownDatabase`), shared by the file's tests. */
  readonly sequelize: Sequelize;
  /** A client of the file's server. */
  readonly client: Client;
  /** The connection the file's workers poll on. */
  readonly connection: NativeConnection;
  /** The real activities on the file's database; `provider` defaults to a fresh in-memory fake. */
  activities(provider?: ActivityDeps['provider'], extra?: Partial<ActivityDeps>): Activities;
  /** A worker of the gateway's workflows with `activities`, on a task queue of its own. */
  createWorker(activities: object, opts?: TestWorkerOptions): Promise<{ worker: Worker; taskQueue: string }>;
  /** Runs `fn` while such a worker runs (`worker.runUntil`); the worker stops when `fn` settles. */
  withWorker<T>(activities: object, fn: (taskQueue: string) => Promise<T>, opts?: TestWorkerOptions): Promise<T>;
}

export function useWorkflowEnv(opts: WorkflowEnvOptions = {}): WorkflowEnv {
  const server = opts.server ?? 'time-skipping';
  let env: TestWorkflowEnvironment | undefined;
  let sequelize: Sequelize | undefined;
  let dev: { connection: Connection; nativeConnection: NativeConnection; client: Client } | undefined;

  beforeAll(async () => {
    const databaseUrl = opts.ownDatabase
      ? await freshDatabase(testEnv().databaseUrl, testEnv().templateDatabase)
      : testEnv().databaseUrl;
    sequelize = createSequelize(databaseUrl, opts.poolMax === undefined ? {} : { poolMax: opts.poolMax });
    if (opts.ownDatabase) await runMigrations(sequelize); // a no-op on a copy of the template
    if (server === 'time-skipping') env = await createTimeSkippingEnv();
    if (server === 'dev') {
      const connection = await Connection.connect({ address: testEnv().temporalAddress });
      const nativeConnection = await NativeConnection.connect({ address: testEnv().temporalAddress });
      dev = { connection, nativeConnection, client: new Client({ connection }) };
    }
  });

  afterAll(async () => {
    await env?.teardown();
    await dev?.nativeConnection.close();
    await dev?.connection.close();
    await sequelize?.close();
  });

  const ready = <T>(value: T | undefined, what: string): T => {
    if (value === undefined)
      throw new Error(`useWorkflowEnv: no ${what} here (server: '${server}'; read it inside a hook or a test)`);
    return value;
  };

  const self: WorkflowEnv = {
    get env() {
      return ready(env, 'time-skipping environment');
    },
    get sequelize() {
      return ready(sequelize, 'database');
    },
    get client() {
      return env ? env.client : ready(dev, 'Temporal server').client;
    },
    get connection() {
      return env ? env.nativeConnection : ready(dev, 'Temporal server').nativeConnection;
    },
    activities(provider = new FakePixProvider(), extra = {}) {
      return createActivities({
        sequelize: self.sequelize,
        provider,
        providerCallbackUrl: 'http://127.0.0.1:1/unused',
        logger: testLogger('worker-test'),
        ...extra,
      });
    },
    async createWorker(activities, o = {}) {
      const taskQueue = `${o.prefix ?? 'wf'}-${crypto.randomUUID()}`;
      const worker = await Worker.create({
        connection: self.connection,
        taskQueue,
        ...(o.workflowsPath ? { workflowsPath: o.workflowsPath } : { workflowBundle: await workflowBundle() }),
        activities,
      });
      return { worker, taskQueue };
    },
    async withWorker(activities, fn, o) {
      const { worker, taskQueue } = await self.createWorker(activities, o);
      return worker.runUntil(() => fn(taskQueue));
    },
  };
  return self;
}
