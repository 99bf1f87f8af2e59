/**
 * Send slots (db/sendSlots.ts) on the run's real PostgreSQL: PIX_SEND_CONCURRENCY sends in flight
 * per PSP account, however many processes send. Two gates stand for two worker processes (each
 * has its own pool, so its own sessions); what runs under them counts how many are inside at once.
 */
import crypto from 'node:crypto';
import { Client as PgClient } from 'pg';
import { AdvisorySendSlots } from '../../db/sendSlots';
import { testEnv } from '../support/env';

const databaseUrl = () => testEnv().databaseUrl;

async function inFlightPeak(gates: AdvisorySendSlots[], sendsPerGate: number): Promise<number> {
  let inside = 0;
  let peak = 0;
  const send = async () => {
    inside++;
    peak = Math.max(peak, inside);
    await new Promise((r) => setTimeout(r, 15));
    inside--;
  };
  await Promise.all(gates.flatMap((gate) => Array.from({ length: sendsPerGate }, () => gate.run(send))));
  return peak;
}

it('one slot: never two sends of the account at once across two processes, and every send runs', async () => {
  const account = `test-account-${Date.now()}`;
  const gates = [1, 2].map(() => new AdvisorySendSlots({ databaseUrl: databaseUrl(), account, concurrency: 1 }));
  try {
    expect(await inFlightPeak(gates, 8)).toBe(1);
  } finally {
    await Promise.all(gates.map((g) => g.close()));
  }
});

it('four slots: never more than four at once across two processes', async () => {
  const account = `test-account-${Date.now()}`;
  const gates = [1, 2].map(() => new AdvisorySendSlots({ databaseUrl: databaseUrl(), account, concurrency: 4 }));
  try {
    expect(await inFlightPeak(gates, 12)).toBeLessThanOrEqual(4);
  } finally {
    await Promise.all(gates.map((g) => g.close()));
  }
});

it('a slot held past the wait: SEND_SLOTS_BUSY, transient, nothing run; another account is not held up', async () => {
  const account = `test-account-${Date.now()}`;
  const holder = new AdvisorySendSlots({ databaseUrl: databaseUrl(), account, concurrency: 1 });
  const waiter = new AdvisorySendSlots({ databaseUrl: databaseUrl(), account, concurrency: 1, maxWaitMs: 200 });
  const other = new AdvisorySendSlots({
    databaseUrl: databaseUrl(),
    account: `${account}-b`,
    concurrency: 1,
    maxWaitMs: 30_000,
  });
  let release!: () => void;
  let entered!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  const held = holder.run(() => {
    entered();
    return new Promise<void>((r) => (release = r));
  });
  try {
    await inside;
    let ran = false;
    await expect(waiter.run(async () => (ran = true))).rejects.toMatchObject({
      code: 'SEND_SLOTS_BUSY',
      transient: true,
    });
    expect(ran).toBe(false);
    expect(await other.run(async () => 'sent for the other account')).toBe('sent for the other account');
  } finally {
    release();
    await held;
    await Promise.all([holder.close(), waiter.close(), other.close()]);
  }
  // Released: the next one gets it at once.
  const again = new AdvisorySendSlots({ databaseUrl: databaseUrl(), account, concurrency: 1, maxWaitMs: 200 });
  try {
    expect(await again.run(async () => 'sent')).toBe('sent');
  } finally {
    await again.close();
  }
});

it('the database ending the session that holds a slot mid-send (a restart) does not crash the process; the send ends, the next one takes a slot', async () => {
  const account = `test-account-${Date.now()}-restart`;
  const gate = new AdvisorySendSlots({ databaseUrl: databaseUrl(), account, concurrency: 1, maxWaitMs: 30_000 });
  const admin = new PgClient({ connectionString: databaseUrl() });
  await admin.connect();
  // The slot's lock: first key a digest of the account (as db/sendSlots.ts makes it), in this database.
  const lockClass = crypto.createHash('sha256').update(`pix-send-slots:${account}`).digest().readInt32BE(0) >>> 0;
  try {
    const sent = await gate.run(async () => {
      const { rows } = await admin.query<{ ended: boolean }>(
        `SELECT pg_terminate_backend(pid) AS ended FROM pg_locks
          WHERE locktype = 'advisory' AND granted AND classid = $1::bigint::oid
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
        [lockClass],
      );
      expect(rows).toEqual([{ ended: true }]);
      // The session's end reaches the pool's client while the send still runs.
      await new Promise((r) => setTimeout(r, 500));
      return 'sent';
    });
    expect(sent).toBe('sent');
    expect(await gate.run(async () => 'next')).toBe('next');
  } finally {
    await admin.end();
    await gate.close();
  }
});
