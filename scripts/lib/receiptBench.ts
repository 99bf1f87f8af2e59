/**
 * The receipt part of `npm run bench` (scripts/bench.ts): BENCH_RECEIPTS (200) charges paid the
 * real way, then their receipts downloaded over HTTP, signed, by 50 concurrent clients:
 *   1. first downloads: every one a cache miss, rendered in the worker-thread pool and stored;
 *   2. cached downloads: the same receipts again (BENCH_RECEIPTS × 5 requests), the stored bytes;
 *   3. raw baseline: the same PDF drawn by renderReceiptPdf on this thread, one after another
 *      (what every download would cost, and block the event loop for, without pool and cache).
 * While (1) runs, the API's event-loop delay is sampled: the API runs in its own process, so the
 * figure is its /metrics event-loop lag (prom-client's 10 ms-resolution histogram, which each
 * scrape resets: one scrape before (1), one after). Renders are counted as the rows (1) and (2)
 * add to receipt_documents: each render is stored once. The load generator's failed requests
 * (timeouts, resets, 5xx, any other answer than expected: scripts/lib/loadFetch.ts) are counted
 * and shown, never thrown: a charge that could not be created or paid is left out.
 */
import { Op, QueryTypes, type Sequelize } from 'sequelize';
import { signedRequestHeaders } from '../../core/signatures/requestSignature';
import { renderReceiptPdf } from '../../core/receipts/pdf/renderReceiptPdf';
import { createMerchantWithCredential, type MerchantCredentials } from '../../db/identity/merchantAdmin';
import { Charge } from '../../db/models';
import { chargeReceiptFacts } from '../../api/receipts/facts';
import { DEFAULT_PLATFORM_INSTITUTION_NAME } from '../../config';
import { percentile, timed, type BenchTable } from './benchTable';
import { LoadErrors, loadFetch } from './loadFetch';
import { pspChargeRef } from '../../core/pix/apiPixIds';
import { credentialHeaders } from './credentialHeaders';

const RECEIPTS = Number(process.env.BENCH_RECEIPTS ?? 200);
const CONCURRENCY = 50;

export interface ReceiptBenchDeps {
  apiUrl: string;
  sandboxUrl: string;
  sequelize: Sequelize;
  encryptionKey: string;
  line: (k: string, v: string) => void;
  table?: BenchTable;
}

const summary = (r: { durations: number[]; wallMs: number }) =>
  `${(r.durations.length / (r.wallMs / 1000)).toFixed(1)} receipts/s, p50 ${percentile(r.durations, 50).toFixed(1)} ms, p99 ${percentile(r.durations, 99).toFixed(1)} ms`;

async function payCharges(d: ReceiptBenchDeps, creds: MerchantCredentials, errors: LoadErrors): Promise<string[]> {
  const headers = credentialHeaders(creds);
  const ids: string[] = [];
  await timed(RECEIPTS, 20, async (i) => {
    const res = await loadFetch(errors, `${d.apiUrl}/sellers/pix`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ amountCents: 1_000 + i, description: `Recibo de bench nº ${i}` }),
    });
    if (res?.status !== 201) {
      if (res && res.status < 500) errors.count(`create ${res.status}`);
      return;
    }
    const { id } = JSON.parse(res.body.toString('utf8')) as { id: string };
    const paid = await loadFetch(errors, `${d.sandboxUrl}/sandbox/charges/${pspChargeRef(id)}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    if (paid?.status !== 200) {
      if (paid && paid.status < 500) errors.count(`pay ${paid.status}`);
      return;
    }
    ids.push(id);
  });
  const deadline = Date.now() + 5 * 60_000;
  while ((await Charge.count({ where: { id: { [Op.in]: ids }, status: 'PAID' } })) < ids.length) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the receipt charges to be paid');
    await new Promise((r) => setTimeout(r, 250));
  }
  return ids;
}

/** Receipts stored so far: one row per render (api/receipts/receiptDocuments.ts). */
async function storedReceipts(sequelize: Sequelize): Promise<number> {
  const [row] = await sequelize.query<{ n: string }>('SELECT count(*) AS n FROM receipt_documents', {
    type: QueryTypes.SELECT,
  });
  return Number(row!.n);
}

/** The API's event-loop lag gauges (seconds) from its /metrics; the scrape also resets them. */
async function eventLoopLag(apiUrl: string, errors: LoadErrors): Promise<{ p99: number; max: number }> {
  const text = (await loadFetch(errors, `${apiUrl}/metrics`))?.body.toString('utf8') ?? '';
  const gauge = (name: string) =>
    Number(new RegExp(`^gateway_nodejs_eventloop_lag_${name}_seconds (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { p99: gauge('p99'), max: gauge('max') };
}

export async function benchReceipts(d: ReceiptBenchDeps): Promise<void> {
  const creds = await createMerchantWithCredential(d.sequelize, { name: 'Bench Recibos' }, d.encryptionKey);
  const errors = new LoadErrors();
  const ids = await payCharges(d, creds, errors);
  if (ids.length === 0)
    throw new Error(`no receipt charge could be created and paid (load errors: ${errors.summary()})`);

  let lastTimestamp = 0;
  let bytes = 0;
  const download = async (id: string) => {
    const p = `/v1/receipts/transactions/${id}`;
    // Each request signed afresh: a signature is accepted once.
    const ts = (lastTimestamp = Math.max(Date.now(), lastTimestamp + 1));
    const res = await loadFetch(errors, `${d.apiUrl}${p}`, {
      headers: signedRequestHeaders({ ...creds, method: 'GET', path: p, rawBody: '', timestampMs: ts }),
    });
    if (res?.status !== 200) {
      if (res && res.status < 500) errors.count(`receipt ${res.status}`);
      return;
    }
    bytes += res.body.byteLength;
  };

  await eventLoopLag(d.apiUrl, errors); // resets the API's histogram: the next reading covers (1) alone
  const rendersBefore = await storedReceipts(d.sequelize);
  const first = await timed(ids.length, CONCURRENCY, (i) => download(ids[i]));
  const loop = await eventLoopLag(d.apiUrl, errors);
  const rendered = (await storedReceipts(d.sequelize)) - rendersBefore;
  const averageBytes = Math.round(bytes / ids.length);

  const cachedRendersBefore = await storedReceipts(d.sequelize);
  const cached = await timed(ids.length * 5, CONCURRENCY, (i) => download(ids[i % ids.length]));
  const cachedRenders = (await storedReceipts(d.sequelize)) - cachedRendersBefore;

  // Raw baseline: the renderer itself on this thread, no HTTP, no pool, no cache.
  const facts = await chargeReceiptFacts((await Charge.findByPk(ids[0]))!, DEFAULT_PLATFORM_INSTITUTION_NAME);
  const rawN = Math.min(50, ids.length);
  const raw = await timed(rawN, 1, async () => {
    await renderReceiptPdf(facts!, { verifyUrl: `${d.apiUrl}/receipts/verify?code=${'A'.repeat(106)}` });
  });

  process.stdout.write(
    `\nreceipt downloads (${ids.length} paid charges, ${CONCURRENCY} concurrent clients, signed GET /v1/receipts/transactions/{id}, ~${Math.round(averageBytes / 1024)} KiB each)\n`,
  );
  d.line('first download (rendered in pool)', `${summary(first)} (${rendered} renders)`);
  d.line('cached download (stored bytes)', `${summary(cached)} (${cachedRenders} renders)`);
  d.line('raw: renderReceiptPdf on main thread', `${summary(raw)} (one at a time, blocks the loop)`);
  d.line(
    'API event-loop delay while rendering',
    `p99 ${(loop.p99 * 1000).toFixed(1)} ms, max ${(loop.max * 1000).toFixed(1)} ms`,
  );
  d.line('load errors', errors.summary());
  // No goal is set for receipts: the row shows the figure beside its raw baseline, and
  // "met" only says every request succeeded.
  const rate = (r: { durations: number[]; wallMs: number }) => r.durations.length / (r.wallMs / 1000);
  d.table?.add({
    name: 'receipt first download (receipts/s)',
    ours: rate(first),
    baseline: rate(raw),
    goal: 'none set (main-thread render as baseline)',
    met: errors.total === 0 && ids.length === RECEIPTS,
    errors: errors.total,
    note: errors.total ? `load errors: ${errors.summary()}` : '',
  });
}
