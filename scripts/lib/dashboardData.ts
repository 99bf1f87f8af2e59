/**
 * The dashboard part's data set (scripts/lib/dashboardBench.ts): `charges` charges of `merchants`
 * merchants, loaded in minutes rather than hours. Merchants are of unequal sizes, as a real
 * gateway's are: a Zipf spread (the merchant of rank k has ~1/k of the largest's charges), so at
 * 10,000,000 charges of 1,000 merchants the largest has ~1.3 million and the median a few thousand.
 * Each merchant's charges are spread over the last 365 days (60% PAID, 15% EXPIRED, 10% CANCELLED,
 * 15% PENDING; one in five a boleto; 3% of the paid ones refunded), the same mix as before.
 *
 * How it loads fast: every row is made by PostgreSQL itself (INSERT ... SELECT FROM generate_series,
 * in time slices, each slice's rows in time order so merchants interleave in the table as they do
 * in production; two slices at a time, one per core); pg-copy-streams is not a dependency, and
 * nothing crosses the wire per row. The
 * rollup triggers (db/migrations/0022_dashboard.ts, and 0047's per payer and month) would cost
 * several statements per row, so the bulk is loaded with them disabled and each rollup is then
 * built by one set-based statement (rollupSelect, payerRollupSelect; the two at once); the charges' plain (non-unique) indexes are dropped for the bulk and recreated
 * from their own definitions (pg_indexes) after it, checked identical, then VACUUM ANALYZE.
 *
 * Why the set-based rollup can be trusted: the smallest merchants (~20,000 charges) are loaded
 * FIRST, with the triggers on, and each rollup the triggers kept for them is compared row by row
 * with what its statement computes from the same rows (`proof`, `payerProof`): the run shows the
 * rows that differ (0 expected), and the dashboard row is not met if any does.
 *
 * The bench's own database only: it runs under the migration role (the tables' owner), which may
 * disable its triggers and drop its indexes; nothing else writes charges during the part.
 */
import type { Sequelize, Transaction } from 'sequelize';

export interface DashboardData {
  /** The merchants' ids, by rank (0: the largest). */
  merchantIds: string[];
  /** Charges of each merchant, by rank. */
  sizes: number[];
  loadS: number;
  /** Seconds per phase of the load, in order. */
  phases: Record<string, number>;
  refunds: number;
  proof: { charges: number; merchants: number; rollupRows: number; differing: number };
  /** The same proof for dashboard_payer_months (migration 0047), on the same charges. */
  payerProof: { rollupRows: number; differing: number };
}

/** Charges per merchant, by rank: a Zipf spread (weight 1/k) summing to `charges`, at least one each. */
export function merchantSizes(charges: number, merchants: number): number[] {
  let harmonic = 0;
  for (let k = 1; k <= merchants; k++) harmonic += 1 / k;
  const sizes = Array.from({ length: merchants }, (_, i) => Math.max(1, Math.floor(charges / ((i + 1) * harmonic))));
  // The rounding's remainder goes to the largest, so the total is exact.
  sizes[0] += charges - sizes.reduce((a, b) => a + b, 0);
  return sizes;
}

/** The rank (0-based) of the median-size merchant. */
export function medianRank(merchants: number): number {
  return Math.floor(merchants / 2);
}

const ROLLUP_DAY = `AT TIME ZONE 'America/Sao_Paulo')::date`;
const SIZES = 'bench_dashboard_sizes';
/** Connections loading (and indexing) at once: the host's two cores. */
const LOADERS = 2;

/**
 * The rollup dashboard_daily holds for the merchants of ranks [lo, hi], computed from the rows
 * at once: the same contributions as dashboard_charge_apply and dashboard_refund_apply
 * (db/migrations/0022_dashboard.ts) add per row — created and failed by the day created, paid by
 * the day paid (a boleto's paid amount and fee when set), SUCCEEDED refunds by the day settled
 * under their charge's method.
 */
function rollupSelect(): string {
  const ranks = `JOIN ${SIZES} s ON s.merchant_id = c.merchant_id AND s.rank BETWEEN :lo AND :hi`;
  return `SELECT merchant_id, day, method, sum(created)::bigint AS created_count, sum(failed)::bigint AS failed_count,
                 sum(paid)::bigint AS paid_count, sum(paid_c)::bigint AS paid_cents, sum(fee_c)::bigint AS fee_cents,
                 sum(refunds)::bigint AS refund_count, sum(refunded_c)::bigint AS refunded_cents
            FROM (SELECT c.merchant_id, (c.created_at ${ROLLUP_DAY} AS day, c.method, 1 AS created,
                         CASE WHEN c.status IN ('EXPIRED', 'CANCELLED') THEN 1 ELSE 0 END AS failed,
                         0 AS paid, 0::bigint AS paid_c, 0::bigint AS fee_c, 0 AS refunds, 0::bigint AS refunded_c
                    FROM charges c ${ranks}
                  UNION ALL
                  SELECT c.merchant_id, (COALESCE(c.paid_at, c.created_at) ${ROLLUP_DAY}, c.method, 0, 0, 1,
                         COALESCE(c.boleto_paid_amount_cents, c.amount_cents), COALESCE(c.boleto_paid_fee_cents, c.fee_cents), 0, 0
                    FROM charges c ${ranks} WHERE c.status = 'PAID'
                  UNION ALL
                  SELECT r.merchant_id, (COALESCE(r.settled_at, r.created_at) ${ROLLUP_DAY}, c.method, 0, 0, 0, 0, 0, 1, r.amount_cents
                    FROM refunds r JOIN charges c ON c.id = r.charge_id
                    JOIN ${SIZES} s ON s.merchant_id = r.merchant_id AND s.rank BETWEEN :lo AND :hi
                   WHERE r.status = 'SUCCEEDED') x
           GROUP BY merchant_id, day, method`;
}

/**
 * The rollup dashboard_payer_months holds for the merchants of ranks [lo, hi], computed from the
 * rows at once: what dashboard_payer_apply (db/migrations/0047_dashboard_payer_months.ts) adds per
 * row — PAID charges with a payer_key and a paid_at, by São Paulo month of paid_at and payer_key,
 * their count and gross_paid_cents.
 */
function payerRollupSelect(): string {
  return `SELECT c.merchant_id, date_trunc('month', c.paid_at AT TIME ZONE 'America/Sao_Paulo')::date AS month, c.payer_key,
                 count(*)::bigint AS payments, sum(c.gross_paid_cents)::bigint AS amount_cents
            FROM charges c JOIN ${SIZES} s ON s.merchant_id = c.merchant_id AND s.rank BETWEEN :lo AND :hi
           WHERE c.status = 'PAID' AND c.payer_key IS NOT NULL AND c.paid_at IS NOT NULL
           GROUP BY c.merchant_id, 2, c.payer_key`;
}

const PAYER_COLUMNS = 'merchant_id, month, payer_key, payments, amount_cents';

const ROLLUP_COLUMNS =
  'merchant_id, day, method, created_count, failed_count, paid_count, paid_cents, fee_cents, refund_count, refunded_cents';

/**
 * One time slice (slice of slices) of the charges of the merchants of ranks [lo, hi], in time
 * order, with 3% of the paid ones refunded in the same statement; the number of refunds made.
 */
async function loadSlice(
  sequelize: Sequelize,
  t: Transaction,
  r: { lo: number; hi: number; slice: number; slices: number; now: string },
): Promise<number> {
  const [rows] = await sequelize.query(
    `WITH c AS (
       INSERT INTO charges (id, merchant_id, amount_cents, fee_cents, method, status, expires_at, paid_at, expired_at, cancelled_at, payer_snapshot, created_at, updated_at)
       SELECT gen_random_uuid(), merchant_id, amount, amount / 100, CASE WHEN g % 5 = 0 THEN 'BOLETO' ELSE 'PIX' END, status, ts + interval '1 hour',
              CASE WHEN status = 'PAID' THEN ts + interval '5 minutes' END, CASE WHEN status = 'EXPIRED' THEN ts + interval '1 hour' END,
              CASE WHEN status = 'CANCELLED' THEN ts + interval '10 minutes' END,
              CASE WHEN status = 'PAID' THEN jsonb_build_object('name', 'Pagador ' || (i % 5000), 'document', lpad((i % 5000)::text, 11, '0')) END, ts, ts
         FROM (SELECT s.merchant_id, i, s.base + i AS g, 100 + ((s.base + i) * 7919) % 50000 AS amount,
                      CAST(:now AS timestamptz) - ((s.n - i)::double precision / s.n) * interval '365 days' AS ts,
                      CASE WHEN (s.base + i) % 20 < 12 THEN 'PAID' WHEN (s.base + i) % 20 < 15 THEN 'EXPIRED'
                           WHEN (s.base + i) % 20 < 17 THEN 'CANCELLED' ELSE 'PENDING' END AS status
                 FROM ${SIZES} s, generate_series((s.n * :slice) / :slices + 1, (s.n * (:slice + 1)) / :slices) AS i
                WHERE s.rank BETWEEN :lo AND :hi) x
        ORDER BY ts
       RETURNING id, merchant_id, amount_cents, status, paid_at
     ), r AS (
       INSERT INTO refunds (id, charge_id, merchant_id, amount_cents, reason, status, shares, settled_at, created_at, updated_at)
       SELECT gen_random_uuid(), id, merchant_id, amount_cents / 2, 'bench', 'SUCCEEDED', '{}'::jsonb, paid_at + interval '1 day', paid_at + interval '1 day', paid_at + interval '1 day'
         FROM c WHERE status = 'PAID' AND random() < 0.03
       RETURNING 1
     )
     SELECT count(*)::int AS refunds FROM r`,
    { replacements: r, transaction: t },
  );
  return (rows as { refunds: number }[])[0].refunds;
}

/** Runs the tasks, `width` at a time (the loader's connections: PostgreSQL uses one core per backend). */
async function inParallel<T>(tasks: (() => Promise<T>)[], width = LOADERS): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, tasks.length) }, async () => {
      while (next < tasks.length) {
        const i = next++;
        results[i] = await tasks[i]();
      }
    }),
  );
  return results;
}

/** Loads the merchants of ranks [lo, hi] in time slices of about 200,000 charges, two at a time; the refunds made. */
async function loadRanks(sequelize: Sequelize, lo: number, hi: number, charges: number, now: string): Promise<number> {
  const slices = Math.max(1, Math.ceil(charges / 200_000));
  const refunds = await inParallel(
    Array.from(
      { length: slices },
      (_, slice) => () =>
        sequelize.transaction(async (t) => {
          // Per slice: its sort in memory, and no wait on the WAL flush (a crash loses a bench run only).
          await sequelize.query(`SET LOCAL work_mem = '256MB'; SET LOCAL synchronous_commit = off`, { transaction: t });
          return loadSlice(sequelize, t, { lo, hi, slice, slices, now });
        }),
    ),
  );
  return refunds.reduce((a, b) => a + b, 0);
}

/** Rows of a rollup table (as the triggers kept them) that its set-based statement does not give, and the reverse. */
async function rollupDiff(
  sequelize: Sequelize,
  lo: number,
  hi: number,
  r: { table: string; columns: string; computed: string },
): Promise<{ rows: number; differing: number }> {
  const kept = `SELECT ${r.columns
    .split(', ')
    .map((c) => `d.${c}`)
    .join(', ')} FROM ${r.table} d JOIN ${SIZES} s ON s.merchant_id = d.merchant_id AND s.rank BETWEEN :lo AND :hi`;
  const [rows] = await sequelize.query(
    `SELECT (SELECT count(*) FROM (${kept}) k)::int AS rows,
            (SELECT count(*) FROM ((${kept}) EXCEPT ALL (${r.computed})) a)::int
          + (SELECT count(*) FROM ((${r.computed}) EXCEPT ALL (${kept})) b)::int AS differing`,
    { replacements: { lo, hi } },
  );
  return (rows as { rows: number; differing: number }[])[0];
}

const DAILY = { table: 'dashboard_daily', columns: ROLLUP_COLUMNS, computed: rollupSelect() };
const PAYERS = { table: 'dashboard_payer_months', columns: PAYER_COLUMNS, computed: payerRollupSelect() };
/** The charges' rollup triggers, off for the bulk load. */
const BULK_TRIGGERS = [
  ['charges', 'charges_dashboard_rollup'],
  ['refunds', 'refunds_dashboard_rollup'],
  ['charges', 'charges_dashboard_payer_rollup'],
];
const triggers = (how: 'ENABLE' | 'DISABLE') =>
  BULK_TRIGGERS.map(([table, trigger]) => `ALTER TABLE ${table} ${how} TRIGGER ${trigger};`).join(' ');

/** The charges' plain indexes (not the primary key, not a unique one): dropped for the bulk load. */
async function plainIndexes(sequelize: Sequelize): Promise<{ name: string; def: string }[]> {
  const [rows] = await sequelize.query(
    `SELECT indexname AS name, indexdef AS def FROM pg_indexes
      WHERE schemaname = current_schema() AND tablename = 'charges' AND indexdef NOT LIKE 'CREATE UNIQUE%'
      ORDER BY indexname`,
  );
  return rows as { name: string; def: string }[];
}

export async function loadDashboardData(
  sequelize: Sequelize,
  o: { charges: number; merchants: number; ownedIds: { largest: string; median: string }; log: (l: string) => void },
): Promise<DashboardData> {
  const sizes = merchantSizes(o.charges, o.merchants);
  const median = medianRank(o.merchants);
  const started = Date.now();
  const phases: Record<string, number> = {};
  let mark = Date.now();
  const phase = (name: string) => {
    phases[name] = (Date.now() - mark) / 1000;
    mark = Date.now();
    o.log(`dashboard data: ${name} ${phases[name].toFixed(1)} s`);
  };

  // The merchants: the two the bench's users own (the largest, the median), the rest made here.
  const [made] = await sequelize.query(
    `INSERT INTO merchants (id, name, document, document_type, type)
     SELECT gen_random_uuid(), 'Loja Bench ' || k, lpad(k::text, 14, '0'), 'CNPJ', 'PRODUCER' FROM generate_series(1, :n) AS k
     RETURNING id`,
    { replacements: { n: o.merchants - 2 } },
  );
  const others = (made as { id: string }[]).map((m) => m.id);
  const merchantIds = sizes.map((_, rank) =>
    rank === 0 ? o.ownedIds.largest : rank === median ? o.ownedIds.median : others.pop()!,
  );
  let base = 0;
  const bases = sizes.map((n) => ((base += n), base - n));
  await sequelize.query(
    `DROP TABLE IF EXISTS ${SIZES};
     CREATE TABLE ${SIZES} (merchant_id UUID PRIMARY KEY, rank INT NOT NULL, n BIGINT NOT NULL, base BIGINT NOT NULL);
     INSERT INTO ${SIZES} SELECT * FROM unnest(CAST(:ids AS uuid[]), CAST(:ranks AS int[]), CAST(:ns AS bigint[]), CAST(:bases AS bigint[]))`,
    {
      replacements: {
        ids: `{${merchantIds.join(',')}}`,
        ranks: `{${sizes.map((_, i) => i).join(',')}}`,
        ns: `{${sizes.join(',')}}`,
        bases: `{${bases.join(',')}}`,
      },
    },
  );
  const [[{ now }]] = (await sequelize.query(`SELECT now()::text AS now`)) as [{ now: string }[], unknown];
  phase('merchants');

  // The proof set: the smallest merchants, about 20,000 charges (a fifth of a small run), triggers on.
  const proofTarget = Math.min(20_000, Math.floor(o.charges / 5));
  let proofFrom = sizes.length;
  let proofCharges = 0;
  while (proofFrom > 1 && proofCharges < proofTarget && proofFrom - 1 !== median) proofCharges += sizes[--proofFrom];
  let refunds = await loadRanks(sequelize, proofFrom, sizes.length - 1, proofCharges, now);
  const diff = await rollupDiff(sequelize, proofFrom, sizes.length - 1, DAILY);
  const payerDiff = await rollupDiff(sequelize, proofFrom, sizes.length - 1, PAYERS);
  phase(`proof set (${proofCharges} charges, triggers on, compared)`);

  // The bulk: triggers off, plain indexes dropped; both put back whatever happens.
  const indexes = await plainIndexes(sequelize);
  const bulk = o.charges - proofCharges;
  await sequelize.query(triggers('DISABLE') + indexes.map((i) => `DROP INDEX ${i.name};`).join(''));
  try {
    refunds += await loadRanks(sequelize, 0, proofFrom - 1, bulk, now);
    phase(`charges (${bulk} rows, triggers off, plain indexes dropped)`);
  } finally {
    await sequelize.query(triggers('ENABLE'));
    await inParallel(
      indexes.map(
        (i) => () =>
          sequelize.transaction(async (t) => {
            await sequelize.query(`SET LOCAL maintenance_work_mem = '512MB'`, { transaction: t });
            await sequelize.query(i.def, { transaction: t });
          }),
      ),
    );
  }
  const rebuilt = await plainIndexes(sequelize);
  if (JSON.stringify(rebuilt) !== JSON.stringify(indexes))
    throw new Error(
      `the charges' indexes differ after the load: ${JSON.stringify({ before: indexes, after: rebuilt })}`,
    );
  phase(`indexes (${indexes.length} rebuilt, identical)`);

  // The two rollups at once, one per core.
  await inParallel(
    [
      // ~730 rows per merchant (a year of days, two methods).
      `INSERT INTO dashboard_daily AS t (${ROLLUP_COLUMNS}) ${rollupSelect()}
     ON CONFLICT (merchant_id, day, method) DO UPDATE SET
       created_count = t.created_count + EXCLUDED.created_count, failed_count = t.failed_count + EXCLUDED.failed_count,
       paid_count = t.paid_count + EXCLUDED.paid_count, paid_cents = t.paid_cents + EXCLUDED.paid_cents,
       fee_cents = t.fee_cents + EXCLUDED.fee_cents, refund_count = t.refund_count + EXCLUDED.refund_count,
       refunded_cents = t.refunded_cents + EXCLUDED.refunded_cents`,
      // Up to 13 months x 5,000 payers per merchant; inserted in key order, so its primary key is
      // appended to rather than updated at random (12 s instead of 22 s at 2,000,000 charges).
      `INSERT INTO dashboard_payer_months AS t (${PAYER_COLUMNS}) ${payerRollupSelect()} ORDER BY 1, 2, 3
     ON CONFLICT (merchant_id, month, payer_key) DO UPDATE SET
       payments = t.payments + EXCLUDED.payments, amount_cents = t.amount_cents + EXCLUDED.amount_cents`,
    ].map(
      (sql) => () =>
        sequelize.transaction(async (t) => {
          // The grouping in memory, not spilled to disk.
          await sequelize.query(`SET LOCAL work_mem = '512MB'; SET LOCAL synchronous_commit = off`, { transaction: t });
          await sequelize.query(sql, { replacements: { lo: 0, hi: proofFrom - 1 }, transaction: t });
        }),
    ),
  );
  phase('rollups (two set-based statements, at once)');
  // VACUUM as autovacuum would after a bulk load: statistics, and the visibility map index-only scans need.
  for (const table of ['charges', 'refunds', 'dashboard_daily', 'dashboard_payer_months'])
    await sequelize.query(`VACUUM ANALYZE ${table}`);
  await sequelize.query(`DROP TABLE ${SIZES}`);
  phase('VACUUM ANALYZE');
  return {
    merchantIds,
    sizes,
    loadS: (Date.now() - started) / 1000,
    phases,
    refunds,
    proof: {
      charges: proofCharges,
      merchants: sizes.length - proofFrom,
      rollupRows: diff.rows,
      differing: diff.differing,
    },
    payerProof: { rollupRows: payerDiff.rows, differing: payerDiff.differing },
  };
}
