/**
 * Business gauges read from PostgreSQL when Prometheus scrapes: charges and payouts by status,
 * ledger totals per account kind, outbox lag and webhook delivery outcomes. They are figures of
 * the whole platform (grouped by status or kind only: no merchant ids). One snapshot serves every
 * gauge of a scrape and is kept `cacheMs` (5 s): a flood of scrapes costs one round of aggregate
 * queries per 5 s, not one per request. Concurrent scrapes share the one query in flight.
 */
import { Gauge, type Registry } from 'prom-client';
import type { Sequelize } from 'sequelize';
import { chargeStore } from '../../db/charges';
import { deliveryStore, outboxStore } from '../../db/events';
import { balanceStore } from '../../db/ledger';
import { payoutStore } from '../../db/payouts';
import { withdrawalStore } from '../../db/withdrawals';

/** One scrape's figures, each read from its table's store, one query after another. */
async function readSnapshot(sequelize: Sequelize) {
  return {
    charges: await chargeStore.countByStatusAndMethod(sequelize),
    payoutItems: await payoutStore.countItemsByStatus(sequelize),
    withdrawals: await withdrawalStore.countByStatus(sequelize),
    ledger: await balanceStore.totalsByKind(sequelize),
    outbox: outboxLag(await outboxStore.pendingSummary(sequelize), await deliveryStore.unstartedSummary(sequelize)),
    deliveries: await deliveryStore.countByStatus(sequelize),
  };
}

type Lag = { pending: number; oldestAgeSeconds: number | null };

/**
 * The webhook pipeline's lag: events an older worker left undispatched, and deliveries neither
 * delivered by their first attempt nor given a workflow yet (activities/events/firstAttempts.ts).
 */
function outboxLag(events: Lag, deliveries: Lag): Lag {
  const ages = [events.oldestAgeSeconds, deliveries.oldestAgeSeconds].filter((a): a is number => a !== null);
  return { pending: events.pending + deliveries.pending, oldestAgeSeconds: ages.length ? Math.max(...ages) : null };
}

type Snapshot = Awaited<ReturnType<typeof readSnapshot>>;

export function registerBusinessGauges(registry: Registry, sequelize: Sequelize, cacheMs: number): void {
  let cached: { at: number; value: Snapshot } | undefined;
  let running: Promise<Snapshot> | undefined;
  const snapshot = async (): Promise<Snapshot> => {
    if (cached && Date.now() - cached.at < cacheMs) return cached.value;
    running ??= (async () => {
      const value = await readSnapshot(sequelize);
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
    for (const r of s.charges) g.set({ status: r.status, method: r.method }, r.count);
  });
  gauge('gateway_payout_items', 'Payout batch items by status', ['status'] as const, (g, s) => {
    for (const r of s.payoutItems) g.set({ status: r.status }, r.count);
  });
  gauge('gateway_withdrawals', 'Withdrawals (saques) by status', ['status'] as const, (g, s) => {
    for (const r of s.withdrawals) g.set({ status: r.status }, r.count);
  });
  gauge(
    'gateway_ledger_balance_cents',
    'Sum of ledger account balances per account kind, in cents',
    ['kind'] as const,
    (g, s) => {
      for (const r of s.ledger) g.set({ kind: r.kind }, r.balanceCents);
    },
  );
  gauge('gateway_ledger_accounts', 'Ledger accounts per account kind', ['kind'] as const, (g, s) => {
    for (const r of s.ledger) g.set({ kind: r.kind }, r.accounts);
  });
  gauge(
    'gateway_outbox_pending_events',
    'Webhook work not handed over yet: outbox events not dispatched, and deliveries neither delivered by their first attempt nor given a workflow',
    [] as const,
    (g, s) => {
      g.set(s.outbox.pending);
    },
  );
  gauge(
    'gateway_outbox_oldest_pending_age_seconds',
    'Age of the oldest of gateway_outbox_pending_events in seconds (0 when none is pending)',
    [] as const,
    (g, s) => {
      g.set(s.outbox.oldestAgeSeconds ?? 0);
    },
  );
  gauge(
    'gateway_webhook_deliveries',
    'Webhook deliveries by status (PENDING, SUCCEEDED, FAILED, CANCELLED)',
    ['status'] as const,
    (g, s) => {
      for (const r of s.deliveries) g.set({ status: r.status }, r.count);
    },
  );
}
