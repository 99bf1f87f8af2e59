/**
 * The API's Prometheus metrics. Each createApp() gets its own Registry (never prom-client's global
 * default registry), so two apps in one test process never share or double-register a metric.
 * Labels are bounded sets only: route templates (never raw paths: ids would explode the series
 * and leak), status codes, statuses and kinds from CHECK-constrained columns. No merchant ids,
 * no secrets, no personal data in any label.
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Sequelize } from 'sequelize';
import { registerBusinessGauges } from './businessGauges';
import { registerPspBalanceGauge } from './pspBalance';

export interface ApiMetrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  temporalClientErrors: Counter<'operation' | 'error'>;
}

export function createApiMetrics(deps: {
  sequelize: Sequelize;
  cacheMs?: number;
  /** The PSP account's balance in cents (Efí: GET /v2/gn/saldo); absent where the PSP does not tell it. */
  pspBalance?: (() => Promise<number | null>) | null;
}): ApiMetrics {
  const registry = new Registry();
  // Process metrics (CPU, memory, event loop lag, GC) on this registry only.
  collectDefaultMetrics({ register: registry, prefix: 'gateway_' });
  const httpRequests = new Counter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests answered, by method, route template (e.g. /v1/checkouts/:id; "unmatched" when no route matched) and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'HTTP request latency in seconds, from the first middleware to the response finishing',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const temporalClientErrors = new Counter({
    name: 'gateway_temporal_client_errors_total',
    help: "Failed calls of the API's Temporal client, by operation (start, signal, startUpdate, …) and error class",
    labelNames: ['operation', 'error'] as const,
    registers: [registry],
  });
  registerBusinessGauges(registry, deps.sequelize, deps.cacheMs ?? 5000);
  if (deps.pspBalance) registerPspBalanceGauge(registry, deps.pspBalance);
  return { registry, httpRequests, httpDuration, temporalClientErrors };
}
