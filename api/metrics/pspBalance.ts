/**
 * gateway_psp_balance_cents: the platform's account balance at the PSP (Efí: GET /v2/gn/saldo),
 * what every withdrawal, payout and refund to a key is sent from. Read at most once a minute
 * however often Prometheus scrapes (the PSP rate-limits); a read that fails leaves the gauge
 * without a sample (an alert on absence catches it) and is counted in
 * gateway_psp_balance_read_errors_total.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

const CACHE_MS = 60_000;

export function registerPspBalanceGauge(registry: Registry, read: () => Promise<number | null>): void {
  let cached: { at: number; cents: number | null } | null = null;
  const errors = new Counter({
    name: 'gateway_psp_balance_read_errors_total',
    help: "Failed reads of the PSP account's balance",
    registers: [registry],
  });
  new Gauge({
    name: 'gateway_psp_balance_cents',
    help: "The platform's account balance at the PSP, in cents (read at most once a minute)",
    registers: [registry],
    async collect() {
      this.reset();
      if (!cached || Date.now() - cached.at >= CACHE_MS) {
        try {
          cached = { at: Date.now(), cents: await read() };
        } catch {
          errors.inc();
          cached = null;
          return;
        }
      }
      if (cached.cents !== null) this.set(cached.cents);
    },
  });
}
