/**
 * Send slots: at most N Pix sends in flight at once per PSP account, across every worker process.
 * Efí advises sending an account's next Pix only once the previous one has its outcome ("conflitos
 * de saldo"), so a slot is held from the PUT until the outcome is known (or our wait ends).
 *
 * PostgreSQL session advisory locks, one per (account, slot): held on a pool connection while the
 * send runs and unlocked after; a worker that dies drops its connection and with it its slot, so
 * nothing is left held. Callers of one process queue on the pool (sized to the slots), those of
 * several processes meet at the locks. A caller that finds no slot free within `maxWaitMs` gets a
 * transient ProviderError before anything was sent: the transfer path retries it as any outage.
 */
import crypto from 'node:crypto';
import { Pool, type PoolClient } from 'pg';
import { ProviderError } from '../core/provider';

export interface SendGate {
  /** Runs `send` holding one of the account's slots. */
  run<T>(send: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export const SEND_SLOTS_BUSY = 'SEND_SLOTS_BUSY';

/** Every slot of this account stayed busy for `maxWaitMs`: nothing was sent. */
function busy(maxWaitMs: number): ProviderError {
  return new ProviderError(`no Pix send slot free within ${maxWaitMs} ms; nothing was sent`, SEND_SLOTS_BUSY, true);
}

export class AdvisorySendSlots implements SendGate {
  private readonly pool: Pool;
  private readonly lockClass: number;

  constructor(
    private readonly opts: {
      databaseUrl: string;
      /** Names the PSP account (e.g. its API origin, client id and paying key); never logged. */
      account: string;
      concurrency: number;
      maxWaitMs?: number;
    },
  ) {
    if (!Number.isInteger(opts.concurrency) || opts.concurrency < 1)
      throw new Error('send slots: concurrency must be ≥ 1');
    this.pool = new Pool({
      connectionString: opts.databaseUrl,
      max: opts.concurrency,
      connectionTimeoutMillis: this.maxWaitMs,
      allowExitOnIdle: true,
    });
    // A pool error on an idle connection (the server restarted) must not crash the process.
    this.pool.on('error', () => undefined);
    // The lock's first key: 32 bits of a digest of the account, so two accounts never share slots.
    this.lockClass = crypto.createHash('sha256').update(`pix-send-slots:${opts.account}`).digest().readInt32BE(0);
  }

  private get maxWaitMs(): number {
    return this.opts.maxWaitMs ?? 60_000;
  }

  async run<T>(send: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.maxWaitMs;
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch {
      throw busy(this.maxWaitMs);
    }
    // The pool listens for errors of idle connections only: one ended while checked out (the
    // server restarted mid-send) would emit an unhandled 'error' and end the process. Its lock
    // went with the session; the send ends as it would, and the connection is dropped below.
    let lost: Error | undefined;
    const onError = (err: Error) => (lost = err);
    client.on('error', onError);
    let slot: number | null = null;
    try {
      slot = await this.acquire(client, deadline);
      return await send();
    } finally {
      let broken: Error | undefined = lost;
      if (slot !== null && !broken)
        await client.query('SELECT pg_advisory_unlock($1, $2)', [this.lockClass, slot]).catch((err: Error) => {
          broken = err; // the connection is dropped below, and its lock with it
        });
      client.off('error', onError);
      client.release(broken);
    }
  }

  /** A free slot of the account (session lock on `client`), trying each in turn, with a short jittered pause between rounds. */
  private async acquire(client: PoolClient, deadline: number): Promise<number> {
    const first = crypto.randomInt(this.opts.concurrency);
    for (let pause = 5; ; pause = Math.min(pause * 2, 100)) {
      for (let i = 0; i < this.opts.concurrency; i++) {
        const slot = (first + i) % this.opts.concurrency;
        const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS locked', [
          this.lockClass,
          slot,
        ]);
        if (rows[0]?.locked) return slot;
      }
      if (Date.now() + pause > deadline) throw busy(this.maxWaitMs);
      await new Promise((resolve) => setTimeout(resolve, pause + crypto.randomInt(pause)));
    }
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** No pacing (unit tests of the adapter). */
export const unpacedSends: SendGate = { run: (send) => send(), close: async () => undefined };
