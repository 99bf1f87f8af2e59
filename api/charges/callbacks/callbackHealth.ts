/**
 * Receipts and signature failures of provider callbacks, kept in provider_callback_health (one
 * row per minute, shared by every API process; migration 0021). Counts are buffered in memory
 * and added in one upsert at most every FLUSH_MS: the callback route has no rate limit, and a
 * flood of forged callbacks must cost memory increments, not database writes. A reader adds
 * this process's unflushed counts to what the table holds, so the process that took a callback
 * reports it at once; other processes see it within FLUSH_MS. A failed flush keeps the counts
 * for the next one (health figures are best effort and never fail a callback).
 */
import { QueryTypes, type Sequelize } from 'sequelize';
import type { Logger } from 'pino';

const FLUSH_MS = 2000;
const KEEP = "interval '1 day'";

interface Pending {
  received: number;
  signatureFailures: number;
  lastReceivedAt: Date | null;
}

export interface CallbackHealthReport {
  lastCallbackAt: string | null;
  callbacksLastHour: number;
  signatureFailuresLastHour: number;
}

export class CallbackHealth {
  /** Pending counts per minute (epoch ms of the minute's start). */
  private pending = new Map<number, Pending>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: { sequelize: Sequelize; logger?: Logger }) {}

  received(at = new Date()): void {
    const p = this.bucket(at);
    p.received += 1;
    if (!p.lastReceivedAt || p.lastReceivedAt < at) p.lastReceivedAt = at;
  }

  signatureFailed(at = new Date()): void {
    this.bucket(at).signatureFailures += 1;
  }

  async report(now = new Date()): Promise<CallbackHealthReport> {
    const [row] = await this.deps.sequelize.query<{
      received: string | null;
      failures: string | null;
      last: Date | null;
    }>(
      `SELECT sum(received) AS received, sum(signature_failures) AS failures,
              (SELECT max(last_received_at) FROM provider_callback_health) AS last
         FROM provider_callback_health WHERE minute > now() - interval '1 hour'`,
      { type: QueryTypes.SELECT },
    );
    let received = Number(row?.received ?? 0);
    let failures = Number(row?.failures ?? 0);
    let last = row?.last ? new Date(row.last) : null;
    const hourAgo = now.getTime() - 3_600_000;
    for (const [minute, p] of this.pending) {
      if (minute + 60_000 > hourAgo) {
        received += p.received;
        failures += p.signatureFailures;
      }
      if (p.lastReceivedAt && (!last || p.lastReceivedAt > last)) last = p.lastReceivedAt;
    }
    return {
      lastCallbackAt: last ? last.toISOString() : null,
      callbacksLastHour: received,
      signatureFailuresLastHour: failures,
    };
  }

  /** Writes the pending counts now (also called by the timer). */
  async flush(): Promise<void> {
    this.timer = undefined;
    const batch = this.pending;
    if (batch.size === 0) return;
    this.pending = new Map();
    try {
      for (const [minute, p] of batch) {
        await this.deps.sequelize.query(
          `INSERT INTO provider_callback_health (minute, received, signature_failures, last_received_at)
           VALUES (to_timestamp($1 / 1000.0), $2, $3, $4)
           ON CONFLICT (minute) DO UPDATE SET
             received = provider_callback_health.received + EXCLUDED.received,
             signature_failures = provider_callback_health.signature_failures + EXCLUDED.signature_failures,
             last_received_at = GREATEST(provider_callback_health.last_received_at, EXCLUDED.last_received_at)`,
          { bind: [minute, p.received, p.signatureFailures, p.lastReceivedAt] },
        );
      }
      await this.deps.sequelize.query(`DELETE FROM provider_callback_health WHERE minute < now() - ${KEEP}`);
    } catch (err) {
      // Put the counts back: the next flush tries again.
      for (const [minute, p] of batch) {
        const q = this.bucketAt(minute);
        q.received += p.received;
        q.signatureFailures += p.signatureFailures;
        if (p.lastReceivedAt && (!q.lastReceivedAt || q.lastReceivedAt < p.lastReceivedAt))
          q.lastReceivedAt = p.lastReceivedAt;
      }
      this.deps.logger?.warn({ error: (err as Error).name }, 'callback health counts not saved; retrying later');
      this.schedule();
    }
  }

  private bucket(at: Date): Pending {
    const p = this.bucketAt(Math.floor(at.getTime() / 60_000) * 60_000);
    this.schedule();
    return p;
  }

  private bucketAt(minute: number): Pending {
    let p = this.pending.get(minute);
    if (!p) {
      p = { received: 0, signatureFailures: 0, lastReceivedAt: null };
      this.pending.set(minute, p);
    }
    return p;
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
    // Never keeps a process (or a test run) alive on its own.
    this.timer.unref();
  }
}
