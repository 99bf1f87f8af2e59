/**
 * Top payers from the payer rollup (dashboard_payer_months, migration 0047) and the days around
 * its whole months must give exactly what the grouping of the raw index gave before it (the query
 * below, as it was): for every period, whole or partial months at either end, one day or a year.
 * The charges cross months (and a São Paulo month boundary that is another month in UTC), are paid,
 * unpaid, paid then changed back, re-dated, re-keyed by a new payer_snapshot, moved to another
 * merchant and deleted, with ties in amount and payments; the rollup the trigger kept must then
 * equal the one recomputed from the rows.
 */
import crypto from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import { figureStore } from '../../db/dashboard';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { createSequelize } from '../../db/sequelize';
import { testEnv } from '../support/env';

jest.setTimeout(120_000);

const TZ = 'America/Sao_Paulo';
let sequelize: Sequelize;
let merchantId: string;
let otherMerchantId: string;

const select = <T extends object>(sql: string, replacements: Record<string, unknown> = {}) =>
  sequelize.query<T>(sql, { replacements, type: QueryTypes.SELECT });

/** The top-payers query before the rollup (db/dashboard/figureStore.ts at main 0181e98), the reference. */
async function grouped(from: string, to: string, top: number) {
  const rows = await select<{ name: string | null; document: string | null; payments: string; amount: string }>(
    `WITH top AS (
       SELECT payer_key, COUNT(*) AS payments, SUM(gross_paid_cents) AS amount FROM charges
        WHERE merchant_id = :merchantId AND status = 'PAID' AND payer_key IS NOT NULL
          AND paid_at >= CAST(:from AS date)::timestamp AT TIME ZONE '${TZ}' AND paid_at < (CAST(:to AS date) + 1)::timestamp AT TIME ZONE '${TZ}'
        GROUP BY payer_key ORDER BY amount DESC, payments DESC, payer_key LIMIT :top)
     SELECT top.payments, top.amount, p.name, p.document FROM top
       CROSS JOIN LATERAL (SELECT c.payer_snapshot->>'name' AS name, NULLIF(c.payer_snapshot->>'document', '') AS document FROM charges c
                            WHERE c.merchant_id = :merchantId AND c.status = 'PAID' AND c.payer_key = top.payer_key ORDER BY c.paid_at DESC LIMIT 1) p
      ORDER BY top.amount DESC, top.payments DESC, top.payer_key`,
    { merchantId, from, to, top },
  );
  return rows.map((p) => ({
    name: p.name,
    document: p.document,
    payments: Number(p.payments),
    amountCents: Number(p.amount),
  }));
}

const PAYERS = [
  { name: 'Ana', document: '11111111111' },
  { name: 'Bruno', document: '22222222222' },
  { name: 'Carla', document: '' }, // keyed by name
  { name: 'Davi' }, // keyed by name
  { name: 'Eva', document: '55555555555' },
  { name: 'Fabio', document: '66666666666' },
];

/** One charge; its id. */
async function charge(c: {
  status: string;
  paidAt?: string | null;
  amount: number;
  boletoPaid?: number;
  payer?: object | null;
  merchant?: string;
}): Promise<string> {
  const id = crypto.randomUUID();
  await sequelize.query(
    `INSERT INTO charges (id, merchant_id, amount_cents, status, expires_at, paid_at, boleto_paid_amount_cents, payer_snapshot, created_at)
     VALUES (:id, :m, :amount, :status, now(), CAST(:paidAt AS timestamptz), :boletoPaid, CAST(:payer AS jsonb), COALESCE(CAST(:paidAt AS timestamptz), now()))`,
    {
      replacements: {
        id,
        m: c.merchant ?? merchantId,
        amount: c.amount,
        status: c.status,
        paidAt: c.paidAt ?? null,
        boletoPaid: c.boletoPaid ?? null,
        payer: c.payer === null || c.payer === undefined ? null : JSON.stringify(c.payer),
      },
    },
  );
  return id;
}

const update = (id: string, set: string, replacements: Record<string, unknown> = {}) =>
  sequelize.query(`UPDATE charges SET ${set} WHERE id = :id`, { replacements: { id, ...replacements } });

beforeAll(async () => {
  sequelize = createSequelize(testEnv().databaseUrl, { poolMax: 4 });
  ({ merchantId } = await createMerchantWithCredential(sequelize, { name: 'Loja Pagadores' }, '0'.repeat(64)));
  ({ merchantId: otherMerchantId } = await createMerchantWithCredential(
    sequelize,
    { name: 'Loja Outra' },
    '1'.repeat(64),
  ));

  // Paid charges from mid-October 2025 to mid-March 2026, every few days, payers in turn.
  const paid: string[] = [];
  const start = Date.parse('2025-10-14T15:00:00Z');
  for (let i = 0; i < 90; i++) {
    const at = new Date(start + i * 1.7 * 86_400_000).toISOString();
    const payer = PAYERS[(i * 7) % PAYERS.length];
    paid.push(await charge({ status: 'PAID', paidAt: at, amount: 1_000 + (i % 4) * 250, payer }));
  }
  // São Paulo month edges: 02:30 UTC on the 1st is still the last day of the month before there.
  await charge({ status: 'PAID', paidAt: '2026-01-01T02:30:00Z', amount: 5_000, payer: PAYERS[0] });
  await charge({ status: 'PAID', paidAt: '2026-01-01T03:00:00Z', amount: 5_000, payer: PAYERS[1] });
  await charge({ status: 'PAID', paidAt: '2026-02-01T02:59:59Z', amount: 4_000, payer: PAYERS[4] });
  // A boleto paid for less than its amount; a paid charge without payer; one without paid_at.
  await charge({ status: 'PAID', paidAt: '2025-12-10T12:00:00Z', amount: 9_000, boletoPaid: 8_500, payer: PAYERS[3] });
  await charge({ status: 'PAID', paidAt: '2025-12-11T12:00:00Z', amount: 7_000, payer: null });
  await charge({ status: 'PAID', paidAt: null, amount: 7_000, payer: PAYERS[2] });
  // Not paid: never counted.
  await charge({ status: 'EXPIRED', amount: 3_000, payer: PAYERS[5] });
  await charge({ status: 'PENDING', amount: 3_000, payer: PAYERS[5] });
  // Ties: same amount and payments in one month (broken by payer_key), same amount fewer payments.
  await charge({
    status: 'PAID',
    paidAt: '2026-03-25T12:00:00Z',
    amount: 2_000,
    payer: { name: 'Tie B', document: '90000000002' },
  });
  await charge({
    status: 'PAID',
    paidAt: '2026-03-25T13:00:00Z',
    amount: 2_000,
    payer: { name: 'Tie A', document: '90000000001' },
  });
  await charge({
    status: 'PAID',
    paidAt: '2026-03-26T12:00:00Z',
    amount: 1_000,
    payer: { name: 'Tie C', document: '90000000003' },
  });
  await charge({
    status: 'PAID',
    paidAt: '2026-03-26T13:00:00Z',
    amount: 1_000,
    payer: { name: 'Tie C', document: '90000000003' },
  });
  // Another merchant's payments: never counted for this one.
  await charge({
    status: 'PAID',
    paidAt: '2025-12-15T12:00:00Z',
    amount: 99_999,
    payer: PAYERS[0],
    merchant: otherMerchantId,
  });

  // Changes after the fact: each must move the rollup exactly once.
  await update(paid[3], `status = 'EXPIRED'`); // PAID then changed
  await update(paid[10], `status = 'CANCELLED'`);
  await update(paid[10], `status = 'PAID'`); // and back
  await update(paid[20], `paid_at = paid_at + interval '40 days'`); // re-dated into another month
  await update(paid[25], `payer_snapshot = CAST(:p AS jsonb)`, { p: JSON.stringify(PAYERS[5]) }); // re-keyed
  await update(paid[26], `payer_snapshot = CAST(:p AS jsonb)`, {
    p: JSON.stringify({ name: 'Ana Nova', document: '11111111111' }),
  });
  await update(paid[30], `boleto_paid_amount_cents = 123`); // gross changed
  await update(paid[31], `amount_cents = amount_cents + 1`);
  await update(paid[35], `merchant_id = :o`, { o: otherMerchantId }); // moved away
  await update(paid[36], `description = 'nothing counted'`); // no counted column
  for (const i of [40, 41, 60])
    await sequelize.query(`DELETE FROM charges WHERE id = :id`, { replacements: { id: paid[i] } });
  // Every payment of one payer in one month changed away: its rollup row stays at zero.
  const fabio = await select<{ id: string }>(
    `SELECT id FROM charges WHERE merchant_id = :m AND payer_key = '66666666666' AND status = 'PAID'
        AND date_trunc('month', paid_at AT TIME ZONE '${TZ}') = '2025-11-01'`,
    { m: merchantId },
  );
  expect(fabio.length).toBeGreaterThan(0);
  for (const { id } of fabio) await update(id, `status = 'EXPIRED'`);
});

afterAll(async () => {
  await sequelize?.close();
});

it('the rollup the trigger kept equals the one recomputed from the rows (rows at zero aside)', async () => {
  const recount = `SELECT merchant_id, date_trunc('month', paid_at AT TIME ZONE '${TZ}')::date AS month, payer_key,
                          count(*)::bigint AS payments, sum(gross_paid_cents)::bigint AS amount_cents
                     FROM charges WHERE merchant_id IN (:m, :o) AND status = 'PAID' AND payer_key IS NOT NULL AND paid_at IS NOT NULL
                    GROUP BY 1, 2, 3`;
  const kept = `SELECT merchant_id, month, payer_key, payments, amount_cents FROM dashboard_payer_months
                 WHERE merchant_id IN (:m, :o) AND payments <> 0`;
  const r = { m: merchantId, o: otherMerchantId };
  expect(await select(`(${kept}) EXCEPT ALL (${recount})`, r)).toEqual([]);
  expect(await select(`(${recount}) EXCEPT ALL (${kept})`, r)).toEqual([]);
  const zero = await select(`SELECT 1 FROM dashboard_payer_months WHERE merchant_id = :m AND payments = 0`, r);
  expect(zero.length).toBeGreaterThan(0);
  const negative = await select(
    `SELECT 1 FROM dashboard_payer_months WHERE merchant_id IN (:m, :o) AND (payments < 0 OR amount_cents < 0)`,
    r,
  );
  expect(negative).toEqual([]);
});

// Whole months, partial at either end or both, within one month, one day, across the year, empty.
const DAYS = [
  '2025-10-01',
  '2025-10-20',
  '2025-10-31',
  '2025-11-01',
  '2025-11-15',
  '2025-11-30',
  '2025-12-31',
  '2026-01-01',
  '2026-01-17',
  '2026-01-31',
  '2026-02-01',
  '2026-02-28',
  '2026-03-01',
  '2026-03-25',
  '2026-03-31',
  '2026-06-30',
];
const PERIODS = DAYS.flatMap((from) => DAYS.filter((to) => to >= from).map((to) => [from, to] as const));

it.each([100, 3])('every period gives exactly the grouping of the raw rows (top %i)', async (top) => {
  const differing: unknown[] = [];
  for (const [from, to] of PERIODS) {
    const expected = await grouped(from, to, top);
    const got = await figureStore.topPayers(sequelize, { merchantId, from, to, top });
    if (JSON.stringify(got) !== JSON.stringify(expected)) differing.push({ from, to, expected, got });
  }
  expect(differing).toEqual([]);
  // The set is not trivial: the year has every payer, ties ordered by payments then payer_key.
  const year = await grouped('2025-10-01', '2026-06-30', 100);
  expect(year.length).toBeGreaterThanOrEqual(PAYERS.length + 3);
  const march = await figureStore.topPayers(sequelize, { merchantId, from: '2026-03-25', to: '2026-03-26', top: 3 });
  expect(march.map((p) => p.name)).toEqual(['Tie C', 'Tie A', 'Tie B']);
});
