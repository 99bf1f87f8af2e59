/**
 * Send slots (db/sendSlots.ts) on the run's real PostgreSQL: PIX_SEND_CONCURRENCY sends in flight
 * per PSP account, however many processes send. Two gates stand for two worker processes (each
 * has its own pool, so its own sessions); what runs under them counts how many are inside at once.
 */
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
