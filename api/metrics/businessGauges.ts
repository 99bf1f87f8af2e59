/**
 * Business gauges read from PostgreSQL when Prometheus scrapes: charges and payouts by status,
 * ledger totals per account kind, outbox lag and webhook delivery outcomes. They are figures of
 * the whole platform (grouped by status or kind only: no merchant ids). One snapshot serves every
 * gauge of a scrape and is kept `cacheMs` (5 s): a flood of scrapes costs one round of aggregate
 * queries per 5 s, not one per request. Concurrent scrapes share the one query in flight.
 */
import { Gauge, type Registry } from 'prom-client';
import { QueryTypes, type Sequelize } from 'sequelize';

interface Snapshot {
  charges: { status: string; method: string; n: string }[];
  payoutItems: { status: string; n: string }[];
  withdrawals: { status: string; n: string }[];
  ledger: { kind: string; balance: string; n: string }[];
  outbox: { pending: string; oldest_age_seconds: number | null }[];
  deliveries: { status: string; n: string }[];
}

const QUERIES: Record<keyof Snapshot, string> = {
  charges: 'SELECT status, method, count(*) AS n FROM charges GROUP BY status, method',
  payoutItems: 'SELECT status, count(*) AS n FROM payout_items GROUP BY status',
  withdrawals: 'SELECT status, count(*) AS n FROM withdrawals GROUP BY status',
  ledger: 'SELECT kind, sum(balance_cents) AS balance, count(*) AS n FROM ledger_accounts GROUP BY kind',
  // The partial index outbox_events_undispatched makes this a scan of the pending rows only.
  outbox:
    'SELECT count(*) AS pending, EXTRACT(EPOCH FROM now() - min(created_at))::float8 AS oldest_age_seconds FROM outbox_events WHERE dispatched_at IS NULL',
  deliveries: 'SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status',
};

export function registerBusinessGauges(registry: Registry, sequelize: Sequelize, cacheMs: number): void {
  let cached: { at: number; value: Snapshot } | undefined;
  let running: Promise<Snapshot> | undefined;
  const snapshot = async (): Promise<Snapshot> => {
    if (cached && Date.now() - cached.at < cacheMs) return cached.value;
    running ??= (async () => {
      const value = {} as Snapshot;
      for (const [key, sql] of Object.entries(QUERIES) as [keyof Snapshot, string][]) {
        (value as unknown as Record<string, unknown[]>)[key] = await sequelize.query(sql, { type: QueryTypes.SELECT });
      }
      cached = { at: Date.now(), value };
      return value;
    })().finally(() => {
      running = undefined;
    });
    return running;
  };

  const gauge = <L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    fill: (g: Gauge<L>, s: Snapshot) => void,
  ) =>
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const s = await snapshot();
        this.reset();
        fill(this, s);
      },
    });

  gauge('gateway_charges', 'Charges by status and method (all merchants)', ['status', 'method'] as const, (g, s) => {
    for (const r of s.charges) g.set({ status: r.status, method: r.method }, Number(r.n));
  });
  gauge('gateway_payout_items', 'Payout batch items by status', ['status'] as const, (g, s) => {
    for (const r of s.payoutItems) g.set({ status: r.status }, Number(r.n));
  });
  gauge('gateway_withdrawals', 'Withdrawals (saques) by status', ['status'] as const, (g, s) => {
    for (const r of s.withdrawals) g.set({ status: r.status }, Number(r.n));
  });
  gauge(
    'gateway_ledger_balance_cents',
    'Sum of ledger account balances per account kind, in cents',
    ['kind'] as const,
    (g, s) => {
      for (const r of s.ledger) g.set({ kind: r.kind }, Number(r.balance));
    },
  );
  gauge('gateway_ledger_accounts', 'Ledger accounts per account kind', ['kind'] as const, (g, s) => {
    for (const r of s.ledger) g.set({ kind: r.kind }, Number(r.n));
  });
  gauge('gateway_outbox_pending_events', 'Outbox events not yet dispatched', [] as const, (g, s) => {
    g.set(Number(s.outbox[0]?.pending ?? 0));
  });
  gauge(
    'gateway_outbox_oldest_pending_age_seconds',
    'Age of the oldest undispatched outbox event in seconds (0 when none is pending)',
    [] as const,
    (g, s) => {
      g.set(s.outbox[0]?.oldest_age_seconds ?? 0);
    },
  );
  gauge(
    'gateway_webhook_deliveries',
    'Webhook deliveries by status (PENDING, SUCCEEDED, FAILED, CANCELLED)',
    ['status'] as const,
    (g, s) => {
      for (const r of s.deliveries) g.set({ status: r.status }, Number(r.n));
    },
  );
}
