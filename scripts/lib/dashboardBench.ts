/**
 * The dashboard part of `npm run bench` (BENCH_ONLY=dashboard): BENCH_DASHBOARD_CHARGES
 * (10,000,000) charges of BENCH_DASHBOARD_MERCHANTS (1,000) merchants of unequal sizes, spread
 * over the last 365 days, loaded in minutes by scripts/lib/dashboardData.ts (the bulk with the
 * rollup triggers off and the rollup built by one statement, proven equal to the triggers' on a
 * first ~20,000 charges loaded with them on), then every dashboard route called over HTTP with a
 * bearer token, sequentially, BENCH_DASHBOARD_CALLS (100) times each, for the largest merchant
 * and for a median-size one: p50 and p99 per route. Rows are written straight to the tables: no
 * ledger entries, no workflows (the figures read charges, refunds and the rollup only). A call
 * that fails (a timeout, a reset, any answer but 200: scripts/lib/loadFetch.ts) is counted and
 * shown, never thrown; its time counts in the route's percentiles.
 */
import type { Sequelize } from 'sequelize';
import { percentile, type BenchTable } from './benchTable';
import { loadDashboardData } from './dashboardData';
import { LoadErrors, loadFetch } from './loadFetch';

const CHARGES = Number(process.env.BENCH_DASHBOARD_CHARGES ?? 10_000_000);
const MERCHANTS = Number(process.env.BENCH_DASHBOARD_MERCHANTS ?? 1_000);
const CALLS = Number(process.env.BENCH_DASHBOARD_CALLS ?? 100);
/** The goal's data set: a smaller one cannot meet it, however fast. */
const GOAL_CHARGES = 10_000_000;
const GOAL_MERCHANTS = 1_000;
const GOAL_MS = 200;

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

/** A signed-in user owning one new merchant: its token and the merchant's id. */
async function owner(apiUrl: string, label: string): Promise<{ token: string; merchantId: string }> {
  const email = `bench.${label}.${Date.now()}@example.com`;
  const password = 'correct horse battery';
  const post = (path: string, body: unknown, token?: string) =>
    json(`${apiUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
  await post('/auth/register', { name: `Bench Dashboard ${label}`, email, password });
  const login = await post('/auth/login', { email, password });
  const token = login.body?.accessToken as string;
  if (!token) throw new Error(`sign-in failed (${login.status})`);
  const merchant = await post(
    '/dashboard/merchant/ensure',
    { name: `Loja Bench ${label}`, document: '11.222.333/0001-81', type: 'PRODUCER' },
    token,
  );
  const merchantId = merchant.body?.id as string;
  if (!merchantId) throw new Error(`merchant/ensure failed (${merchant.status})`);
  return { token, merchantId };
}

function routes(merchantId: string): string[] {
  const q = `merchantId=${merchantId}`;
  return [
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
}

async function run(d: DashboardBenchDeps): Promise<void> {
  if (!(MERCHANTS >= 2 && CHARGES >= MERCHANTS))
    throw new Error('BENCH_DASHBOARD_MERCHANTS must be at least 2 and at most BENCH_DASHBOARD_CHARGES');
  const largest = await owner(d.apiUrl, 'largest');
  const median = await owner(d.apiUrl, 'median');
  const data = await loadDashboardData(d.sequelize, {
    charges: CHARGES,
    merchants: MERCHANTS,
    ownedIds: { largest: largest.merchantId, median: median.merchantId },
    log: (l) =>
      process.stdout.write(`${l}
`),
  });
  const rate = CHARGES / data.loadS;
  const sizeOf = (id: string) => data.sizes[data.merchantIds.indexOf(id)];
  process.stdout.write(
    `
dashboard benchmark (${CHARGES.toLocaleString('en')} charges of ${MERCHANTS.toLocaleString('en')} merchants, ` +
      `the largest ${sizeOf(largest.merchantId).toLocaleString('en')}, the median ${sizeOf(median.merchantId).toLocaleString('en')}; ` +
      `loaded in ${data.loadS.toFixed(1)} s; ${CALLS} sequential calls per route and merchant)
`,
  );
  d.line(
    'load',
    `${data.loadS.toFixed(1)} s, ${Math.round(rate).toLocaleString('en')} charges/s, ${data.refunds.toLocaleString('en')} refunds; ` +
      Object.entries(data.phases)
        .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
        .join('; '),
  );
  const proofOk =
    data.proof.differing === 0 &&
    data.proof.rollupRows > 0 &&
    data.payerProof.differing === 0 &&
    data.payerProof.rollupRows > 0;
  d.line(
    'rollup proof',
    `${data.proof.charges.toLocaleString('en')} charges of ${data.proof.merchants} merchants loaded with the triggers on: ` +
      `${data.proof.rollupRows} rollup rows, ${data.proof.differing} differ from the set-based statement's`,
  );
  d.line(
    'payer rollup proof',
    `the same charges: ${data.payerProof.rollupRows} payer rollup rows, ${data.payerProof.differing} differ from the set-based statement's`,
  );

  let worst = { ms: 0, what: '' };
  const errors = new LoadErrors();
  for (const [label, who] of [
    ['largest', largest],
    ['median', median],
  ] as const) {
    for (const path of routes(who.merchantId)) {
      const durations: number[] = [];
      for (let i = 0; i < CALLS; i++) {
        const t = performance.now();
        const res = await loadFetch(errors, `${d.apiUrl}${path}`, {
          headers: { authorization: `Bearer ${who.token}` },
        });
        durations.push(performance.now() - t);
        if (res && res.status !== 200 && res.status < 500) errors.count(`answered ${res.status}`);
      }
      const p99 = percentile(durations, 99);
      const shown = `${label}: ${path.replace(`merchantId=${who.merchantId}`, 'merchantId=…')}`;
      if (p99 > worst.ms) worst = { ms: p99, what: shown };
      d.line(shown, `p50 ${percentile(durations, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`);
    }
  }
  d.line('dashboard worst p99', `${worst.ms.toFixed(1)} ms, ${worst.what} (goal < ${GOAL_MS} ms)`);
  d.line('load errors', errors.summary());
  const fullSize = CHARGES >= GOAL_CHARGES && MERCHANTS >= GOAL_MERCHANTS;
  const notes = [
    fullSize ? '' : `a smaller data set than the goal's (${GOAL_CHARGES} charges of ${GOAL_MERCHANTS} merchants)`,
    worst.ms < GOAL_MS ? '' : `slowest: ${worst.what}`,
    proofOk
      ? ''
      : `the set-based rollups differ from the triggers' in ${data.proof.differing} daily and ${data.payerProof.differing} payer rows`,
    errors.total ? `load errors: ${errors.summary()}` : '',
  ].filter(Boolean);
  d.table?.add({
    name: `dashboard worst route p99 over ${CHARGES} charges of ${MERCHANTS} merchants (ms)`,
    ours: worst.ms,
    baseline: null,
    goal: `< ${GOAL_MS} ms at ${GOAL_CHARGES} charges of ${GOAL_MERCHANTS} merchants`,
    met: fullSize && worst.ms < GOAL_MS && errors.total === 0 && proofOk,
    errors: errors.total,
    note: notes.join('; '),
  });
  d.table?.add({
    name: `dashboard data load, ${CHARGES} charges (s)`,
    ours: data.loadS,
    baseline: null,
    goal: "minutes, rollup equal to the triggers'",
    met: null,
    note:
      `${Math.round(rate)} charges/s; rollup proof: ${data.proof.differing} of ${data.proof.rollupRows} rows differ; ` +
      `payer rollup proof: ${data.payerProof.differing} of ${data.payerProof.rollupRows} rows differ`,
  });
}
