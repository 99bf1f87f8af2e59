/**
 * The dashboard part of `npm run bench` (BENCH_ONLY=dashboard): BENCH_DASHBOARD_CHARGES
 * (1,000,000) charges for one merchant, spread over the last 365 days (60% PAID, 15% EXPIRED,
 * 10% CANCELLED, 15% PENDING; one in five a boleto; 3% of the paid ones refunded), written by SQL
 * in batches (the rollup triggers run for every row, as in production), then every dashboard
 * route called over HTTP with a bearer token, sequentially, BENCH_DASHBOARD_CALLS (100) times
 * each: p50 and p99 per route. Rows are written straight to the tables: no ledger entries, no
 * workflows (the figures read charges, refunds and the rollup only). A call that fails (a
 * timeout, a reset, any answer but 200: scripts/lib/loadFetch.ts) is counted and shown, never
 * thrown; its time counts in the route's percentiles.
 */
import type { Sequelize } from 'sequelize';
import { percentile, type BenchTable } from './benchTable';
import { LoadErrors, loadFetch } from './loadFetch';

const CHARGES = Number(process.env.BENCH_DASHBOARD_CHARGES ?? 1_000_000);
const CALLS = Number(process.env.BENCH_DASHBOARD_CALLS ?? 100);
const BATCH = 100_000;

async function json(url: string, init: RequestInit): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  return { status: res.status, body: await res.json().catch(() => null) };
}

interface DashboardBenchDeps {
  apiUrl: string;
  sequelize: Sequelize;
  line: (k: string, v: string) => void;
  table?: BenchTable;
}

export async function benchDashboard(d: DashboardBenchDeps): Promise<void> {
  try {
    await run(d);
  } catch (err) {
    // Sequelize errors carry the database's message on .parent; show it rather than a bare "Error".
    throw new Error(`dashboard bench: ${(err as { parent?: { message?: string } }).parent?.message ?? String(err)}`);
  }
}

async function run(d: DashboardBenchDeps): Promise<void> {
  const email = `bench.${Date.now()}@example.com`;
  const password = 'correct horse battery';
  const post = (path: string, body: unknown, token?: string) =>
    json(`${d.apiUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  await post('/auth/register', { name: 'Bench Dashboard', email, password });
  const login = await post('/auth/login', { email, password });
  const token = login.body?.accessToken as string;
  if (!token) throw new Error(`dashboard bench: sign-in failed (${login.status})`);
  const merchant = await post(
    '/dashboard/merchant/ensure',
    { name: 'Loja Bench', document: '11.222.333/0001-81', type: 'PRODUCER' },
    token,
  );
  const merchantId = merchant.body.id as string;

  const seedStarted = Date.now();
  for (let from = 1; from <= CHARGES; from += BATCH) {
    const to = Math.min(CHARGES, from + BATCH - 1);
    await d.sequelize.query(
      `INSERT INTO charges (id, merchant_id, amount_cents, fee_cents, method, status, expires_at, paid_at, expired_at, cancelled_at, payer_snapshot, created_at, updated_at)
       SELECT gen_random_uuid(), :m, amount, amount / 100, CASE WHEN i % 5 = 0 THEN 'BOLETO' ELSE 'PIX' END, status, ts + interval '1 hour',
              CASE WHEN status = 'PAID' THEN ts + interval '5 minutes' END, CASE WHEN status = 'EXPIRED' THEN ts + interval '1 hour' END,
              CASE WHEN status = 'CANCELLED' THEN ts + interval '10 minutes' END,
              CASE WHEN status = 'PAID' THEN jsonb_build_object('name', 'Pagador ' || (i % 5000), 'document', lpad((i % 5000)::text, 11, '0')) END, ts, ts
         FROM (SELECT i, 100 + (i::bigint * 7919) % 50000 AS amount, now() - ((:n - i)::double precision / :n) * interval '365 days' AS ts,
                      CASE WHEN i % 20 < 12 THEN 'PAID' WHEN i % 20 < 15 THEN 'EXPIRED' WHEN i % 20 < 17 THEN 'CANCELLED' ELSE 'PENDING' END AS status
                 FROM generate_series(CAST(:from AS int), CAST(:to AS int)) AS i) s`,
      { replacements: { m: merchantId, n: CHARGES, from, to } },
    );
  }
  await d.sequelize.query(
    `INSERT INTO refunds (id, charge_id, merchant_id, amount_cents, reason, status, shares, settled_at, created_at, updated_at)
     SELECT gen_random_uuid(), id, merchant_id, amount_cents / 2, 'bench', 'SUCCEEDED', '{}'::jsonb, paid_at + interval '1 day', paid_at + interval '1 day', paid_at + interval '1 day'
       FROM charges WHERE merchant_id = :m AND status = 'PAID' AND random() < 0.03`,
    { replacements: { m: merchantId } },
  );
  // VACUUM as autovacuum would after a bulk load: sets the visibility map index-only scans need.
  for (const table of ['charges', 'refunds', 'dashboard_daily']) await d.sequelize.query(`VACUUM ANALYZE ${table}`);
  const seedS = ((Date.now() - seedStarted) / 1000).toFixed(1);

  const q = `merchantId=${merchantId}`;
  const routes = [
    `/dashboard/metrics?${q}`,
    `/dashboard/summary?${q}`,
    `/dashboard/summary?${q}&period=365d`,
    `/dashboard/stats?${q}`,
    `/dashboard/interactions?${q}`,
    `/dashboard/interactions?${q}&offset=1000`,
    `/dashboard/revenue?${q}`,
    `/dashboard/revenue-history?${q}&period=365d`,
    `/dashboard/transactions?${q}`,
    `/dashboard/transactions?${q}&status=PAID&method=BOLETO`,
    `/dashboard/transactions?${q}&from=2026-01-01&to=2026-03-31&offset=500`,
    `/dashboard/health?${q}`,
  ];
  process.stdout.write(
    `\ndashboard benchmark (${CHARGES.toLocaleString('en')} charges for one merchant, seeded in ${seedS} s; ${CALLS} sequential calls per route)\n`,
  );
  let worst = 0;
  const errors = new LoadErrors();
  for (const path of routes) {
    const durations: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const t = performance.now();
      const res = await loadFetch(errors, `${d.apiUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
      durations.push(performance.now() - t);
      if (res && res.status !== 200 && res.status < 500) errors.count(`answered ${res.status}`);
    }
    worst = Math.max(worst, percentile(durations, 99));
    d.line(
      path.replace(q, 'merchantId=…'),
      `p50 ${percentile(durations, 50).toFixed(1)} ms, p99 ${percentile(durations, 99).toFixed(1)} ms`,
    );
  }
  d.line('dashboard worst p99', `${worst.toFixed(1)} ms (goal < 200 ms)`);
  d.line('load errors', errors.summary());
  // The goal is for 1,000,000 charges: a smaller seed cannot meet it, however fast.
  d.table?.add({
    name: `dashboard worst route p99, ${CHARGES} charges (ms)`,
    ours: worst,
    baseline: null,
    goal: '< 200 ms at 1,000,000 charges',
    met: CHARGES >= 1_000_000 && worst < 200 && errors.total === 0,
    errors: errors.total,
    note: errors.total ? `load errors: ${errors.summary()}` : '',
  });
}
