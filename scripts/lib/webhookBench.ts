/**
 * The webhook part of `npm run bench` (BENCH_ONLY=webhooks): charges paid at a steady rate, as
 * real traffic would arrive, at each rate of BENCH_WEBHOOK_RATES (default 10,25,50 per second:
 * the pipeline's cost as the rate grows; 50/s is the goal's load), each for BENCH_WEBHOOK_SECONDS (default 60; or BENCH_CHARGES charges).
 * Measured per rate: the provider's payment callback → the merchant's receiver getting
 * charge.paid (median, p99, how many not delivered 60 s after the last payment), and the CPU per
 * paid charge of each process group. Baseline (c), the floor of a webhook: a bare HTTP POST of a
 * body the size of a real charge.paid event straight to the same receiver, as many and at the
 * same rate, timed request to response. The load generator's failed requests (timeouts, resets,
 * 5xx: scripts/lib/loadFetch.ts) are counted per rate, and a rate the generator could not offer
 * (its sends fell behind their schedule by more than 5 %) is said so: either makes the row met: false.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import type { createSandboxApp } from '../../sandbox/app';
import { percentile, timed, type BenchTable } from './benchTable';
import { LoadErrors, loadFetch } from './loadFetch';
import { cpuDeltaMs, cpuSnapshot, perOp, type ProcessGroups } from './processCpu';
import { pspChargeRef } from '../../core/pix/apiPixIds';

const RATES = (process.env.BENCH_WEBHOOK_RATES ?? '10,25,50')
  .split(',')
  .map((r) => Number(r.trim()))
  .filter((r) => r > 0);
/** How long after the last payment the charge.paid events may take before they count as not delivered. */
const DRAIN_MS = 60_000;
const countAt = (rate: number) =>
  process.env.BENCH_CHARGES
    ? Number(process.env.BENCH_CHARGES)
    : Math.round(rate * Number(process.env.BENCH_WEBHOOK_SECONDS ?? 60));
/** The goal's load and its CPU budget per paid charge, all processes together. */
const GOAL_RATE = 50;
const GOAL_CPU_MS = 40;

export interface WebhookBenchDeps {
  apiUrl: string;
  sandboxUrl: string;
  sandbox: ReturnType<typeof createSandboxApp>;
  sequelize: Sequelize;
  encryptionKey: string;
  table: BenchTable;
  /** Where a paid charge's CPU goes, from the first payment to the last delivery (or the drain's end). */
  cpuGroups: ProcessGroups;
  line: (k: string, v: string) => void;
  waitUntil: (probe: () => Promise<boolean>, timeoutMs: number, what: string) => Promise<void>;
}

/**
 * Starts `send(i)` for i < count, one every 1/rate s without waiting for the previous one
 * (arrivals do not wait); the rate it really offered: count over the time from the first send to
 * one gap after the last (a busy host's timers fire late, and the sends with them).
 */
async function atRate(rate: number, count: number, send: (i: number) => Promise<unknown>): Promise<number> {
  const gapMs = 1000 / rate;
  const started = performance.now();
  const inFlight: Promise<unknown>[] = [];
  let lastStartedAt = started;
  for (let i = 0; i < count; i++) {
    lastStartedAt = performance.now();
    inFlight.push(send(i));
    // Against the schedule, not the last send, so slow sends do not lower the rate.
    const wait = started + (i + 1) * gapMs - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  await Promise.all(inFlight);
  return count / ((lastStartedAt - started + gapMs) / 1000);
}

/** A rate the generator offered within 5 % of the asked one counts as reached. */
const reached = (offered: number, rate: number) => offered >= 0.95 * rate;

export async function benchWebhooks(d: WebhookBenchDeps): Promise<void> {
  const receiver = startReceiver();
  await new Promise<void>((r) => receiver.server.listen(0, '127.0.0.1', () => r()));
  try {
    const base = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
    const creds = await createMerchantWithCredential(d.sequelize, { name: 'Bench Loja' }, d.encryptionKey);
    const headers = {
      'content-type': 'application/json',
      'x-client-id': creds.clientId,
      'x-client-secret': creds.clientSecret,
    };
    const hook = await fetch(`${d.apiUrl}/sellers/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `${base}/events`, events: ['charge.paid'] }),
      signal: AbortSignal.timeout(15_000),
    });
    if (hook.status !== 201) throw new Error(`webhook registration failed: ${hook.status}`);
    for (const rate of RATES) await benchRate(d, { rate, count: countAt(rate), base, headers, receiver });
  } finally {
    receiver.server.close();
  }
}

interface BenchReceiver {
  server: http.Server;
  /** charge id → when its charge.paid arrived (the first time). */
  receivedAt: Map<string, number>;
  eventBytes: number;
}

function startReceiver(): BenchReceiver {
  const receiver: BenchReceiver = { server: http.createServer(), receivedAt: new Map(), eventBytes: 0 };
  receiver.server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      if (req.url === '/events') {
        const raw = Buffer.concat(chunks);
        const event = JSON.parse(raw.toString('utf8')) as { type: string; data: { id: string } };
        if (event.type === 'charge.paid' && !receiver.receivedAt.has(event.data.id))
          receiver.receivedAt.set(event.data.id, at);
        receiver.eventBytes = Math.max(receiver.eventBytes, raw.byteLength);
      }
      res.writeHead(200).end();
    });
  });
  return receiver;
}

async function benchRate(
  d: WebhookBenchDeps,
  run: { rate: number; count: number; base: string; headers: Record<string, string>; receiver: BenchReceiver },
): Promise<void> {
  const { rate, base, headers } = run;
  const receivedAt = new Map<string, number>();
  // The charges to pay; one whose create failed is counted and left out.
  const createErrors = new LoadErrors();
  const created: (string | undefined)[] = new Array<string | undefined>(run.count);
  await timed(run.count, 8, async (i) => {
    const res = await loadFetch(createErrors, `${d.apiUrl}/sellers/pix`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ amountCents: 1_000 + i }),
    });
    if (res?.status === 201) created[i] = (JSON.parse(res.body.toString('utf8')) as { id: string }).id;
    else if (res && res.status < 500) createErrors.count(`create ${res.status}`);
  });
  const ids = created.filter((id): id is string => id !== undefined);
  const count = ids.length;
  const mine = new Set(ids);
  const seen = run.receiver.receivedAt;
  const firstPaidAt = Date.now();
  const cpuBefore = cpuSnapshot(d.cpuGroups);
  // The provider's callbacks, sent by the sandbox when a charge is paid: what the bench offers.
  const payErrors = new LoadErrors();
  const offered = await atRate(rate, count, (i) =>
    loadFetch(payErrors, `${d.sandboxUrl}/sandbox/charges/${pspChargeRef(ids[i])}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    }),
  );
  // A pipeline slower than the arrival rate falls behind: after DRAIN_MS the late ones are
  // counted as not delivered (and as DRAIN_MS in the percentiles, a bound they exceed).
  const lastSentAt = Date.now();
  const arrived = () => ids.filter((id) => seen.has(id)).length;
  await d
    .waitUntil(async () => arrived() >= ids.length, DRAIN_MS, 'every charge.paid to arrive')
    .catch((err: Error) => {
      if (!err.message.startsWith('timed out')) throw err;
    });
  const cpu = cpuDeltaMs(cpuBefore, cpuSnapshot(d.cpuGroups));
  for (const [id, at] of seen) if (mine.has(id)) receivedAt.set(id, at);
  const missing = ids.length - receivedAt.size;
  const refs = await d.sequelize.query<{ id: string; provider_charge_id: string }>(
    `SELECT id, provider_charge_id FROM charges WHERE id IN (:ids)`,
    { replacements: { ids }, type: QueryTypes.SELECT },
  );
  const callbackAt = new Map(d.sandbox.state.callbacks.map((c) => [c.chargeId, Date.parse(c.at)]));
  const delays: number[] = [];
  for (const { id, provider_charge_id } of refs) {
    const at = callbackAt.get(provider_charge_id);
    if (at !== undefined) delays.push((receivedAt.get(id) ?? Math.max(lastSentAt + DRAIN_MS, at + DRAIN_MS)) - at);
  }
  // Where the time goes: the callback to the settle commit (the event and its delivery are
  // written by it), then the commit to the receiver; and how many needed a workflow.
  const stages = await d.sequelize.query<{
    id: string;
    provider_charge_id: string;
    event_at: Date;
    workflow_started: boolean;
  }>(
    `SELECT c.id, c.provider_charge_id, o.created_at AS event_at, w.workflow_started
       FROM charges c JOIN outbox_events o ON o.aggregate_id = c.id::text AND o.type = 'charge.paid' JOIN webhook_deliveries w ON w.event_id = o.id
       WHERE c.id IN (:ids)`,
    { replacements: { ids }, type: QueryTypes.SELECT },
  );
  const toSettle: number[] = [];
  const toReceiver: number[] = [];
  for (const s of stages) {
    const at = callbackAt.get(s.provider_charge_id);
    if (at === undefined) continue;
    toSettle.push(new Date(s.event_at).getTime() - at);
    const received = receivedAt.get(s.id);
    if (received !== undefined) toReceiver.push(received - new Date(s.event_at).getTime());
  }
  const withWorkflow = stages.filter((s) => s.workflow_started).length;

  // Baseline (c): the same number of bare POSTs, same size, same rate, same receiver.
  const body = JSON.stringify({ type: 'bench.baseline', pad: 'x'.repeat(Math.max(0, run.receiver.eventBytes - 40)) });
  const signature = `t=${Date.now()},v1=${crypto.randomBytes(32).toString('hex')}`; // a header the size of a real signature; signs nothing
  const floor: number[] = [];
  const floorErrors = new LoadErrors();
  await atRate(rate, count, async () => {
    const t = performance.now();
    const res = await loadFetch(floorErrors, `${base}/baseline`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-signature': signature },
      body,
    });
    if (res) floor.push(performance.now() - t);
  });
  const errors = createErrors.total + payErrors.total + floorErrors.total;
  const loadReached = reached(offered, rate);

  process.stdout.write(
    `\nwebhook latency (${delays.length} charges paid at ${rate}/s: provider callback → merchant receives charge.paid)\n`,
  );
  d.line('median', `${percentile(delays, 50)} ms`);
  d.line('p99', `${percentile(delays, 99)} ms`);
  d.line('max', `${delays.length ? Math.max(...delays) : NaN} ms`);
  if (missing > 0)
    d.line('fell behind', `${missing} of ${ids.length} not delivered ${DRAIN_MS / 1000} s after the last payment`);
  const lastReceivedAt = Math.max(firstPaidAt, ...receivedAt.values());
  d.line(
    'delivered per second',
    `${(receivedAt.size / Math.max(0.001, (lastReceivedAt - firstPaidAt) / 1000)).toFixed(1)} (payments sent at ${rate}/s)`,
  );
  // The gateway's processes: the bench process (load generator and sandbox provider) is not ours.
  const cpuTotal =
    Object.entries(cpu)
      .filter(([group]) => group !== 'bench')
      .reduce((a, [, ms]) => a + ms, 0) / Math.max(1, receivedAt.size);
  d.line('CPU per paid charge (ms)', perOp(cpu, Math.max(1, receivedAt.size)));
  d.line('  the gateway (api, worker, temporal, postgres)', `${cpuTotal.toFixed(1)} ms`);
  d.line('deliveries that needed a workflow', `${withWorkflow} of ${stages.length}`);
  const stage = (v: number[]) => `p50 ${percentile(v, 50)} ms, p99 ${percentile(v, 99)} ms`;
  d.line('  callback → event committed (settle)', stage(toSettle));
  d.line('  event committed → receiver', stage(toReceiver));
  d.line(
    `baseline: bare POST of ${run.receiver.eventBytes} B`,
    `median ${percentile(floor, 50).toFixed(1)} ms, p99 ${percentile(floor, 99).toFixed(1)} ms`,
  );
  d.line('payments offered per second', `${offered.toFixed(1)} of ${rate}${loadReached ? '' : ' (NOT reached)'}`);
  d.line(
    'load errors',
    `creates: ${createErrors.summary()}; payments: ${payErrors.summary()}; baseline: ${floorErrors.summary()}`,
  );
  const p99 = percentile(delays, 99);
  const floorP99 = percentile(floor, 99);
  // The goals hold at 50/s for 60 s: a lighter load cannot meet them, however fast; the lighter
  // rates are the curve, reported beside them.
  const atGoalLoad = rate >= GOAL_RATE && run.count >= GOAL_RATE * 60;
  // A load not offered in full, or requests of it that failed: the point is not what it says,
  // whatever its figure (met: false even on the curve), and the note says why.
  const held = errors === 0 && loadReached;
  const note = [
    errors ? `load errors: ${[createErrors, payErrors, floorErrors].map((e) => e.summary()).join(' / ')}` : '',
    loadReached ? '' : `offered ${offered.toFixed(1)}/s of ${rate}/s`,
    missing > 0 ? `${missing} of ${count} undelivered` : '',
    count < run.count ? `${run.count - count} charges not created` : '',
  ]
    .filter(Boolean)
    .join('; ');
  d.table.add({
    name: `webhook p99 at ${rate}/s × ${run.count} (ms)`,
    ours: p99,
    baseline: floorP99,
    goal: atGoalLoad ? '< 250 ms and ≤ 3 × baseline (c), none undelivered' : 'the curve (goal at 50/s × 3,000)',
    met: !held ? false : atGoalLoad ? missing === 0 && p99 < 250 && p99 <= 3 * floorP99 : null,
    errors,
    note,
  });
  d.table.add({
    name: `webhook CPU per paid charge at ${rate}/s, the gateway's processes (ms)`,
    ours: cpuTotal,
    baseline: null,
    goal: atGoalLoad ? `≤ ${GOAL_CPU_MS} ms` : 'the curve (goal at 50/s)',
    met: !held ? false : atGoalLoad ? missing === 0 && cpuTotal <= GOAL_CPU_MS : null,
    errors,
    note,
  });
}
