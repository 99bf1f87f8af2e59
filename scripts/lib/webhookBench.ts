/**
 * The webhook part of `npm run bench` (BENCH_ONLY=webhooks): the knee, not a fixed rate (issue
 * 40). Charges paid at a steady rate, as real traffic would arrive, ramped through
 * BENCH_WEBHOOK_RATES (default 5,10,20,40,80 per second), each for BENCH_WEBHOOK_SECONDS (30; or
 * BENCH_CHARGES charges), until a step does not hold (scripts/lib/loadRamp.ts: every charge
 * delivered, delivered/s within 2 % of the offered rate, p99 < 250 ms, the load reached with no
 * load error). Each step (scripts/lib/webhookStep.ts) measures the provider's payment callback →
 * the merchant's receiver getting charge.paid, and the CPU per paid charge of each process group.
 * Beside it, in the same run, the same ramp for the FLOOR (scripts/lib/floorBench.ts): a
 * signalled bench-only workflow writing one row, the least such a pipeline can cost here. The
 * floor runs first (its worker is then stopped), ours after; a failing step's backlog drains
 * (at most DRAIN_MS) before anything runs next. The rows: each rate's p99 beside the floor's (the
 * curve), the knee against ≥ 0.5 × the floor's knee, and the CPU per paid charge against ≤ 2 × the
 * floor's CPU per signal at the highest rate both held.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import type { Client } from '@temporalio/client';
import type { Sequelize } from 'sequelize';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import type { createSandboxApp } from '../../sandbox/app';
import type { BenchTable } from './benchTable';
import { describeError, LoadErrors, loadFetch } from './loadFetch';
import { pspChargeRef } from '../../core/pix/apiPixIds';
import { countAt, ramp, RATES, type RampStep } from './loadRamp';
import type { ProcessGroups } from './processCpu';
import { benchFloor } from './floorBench';
import { webhookStep, type BenchReceiver } from './webhookStep';
import { credentialHeaders } from './credentialHeaders';

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
  /** The floor's needs (scripts/lib/floorBench.ts). */
  temporal: Client;
  temporalAddress: string;
  temporalClientEnv: Record<string, string>;
  databaseUrl: string;
  watch: (child: ChildProcess) => void;
  floorLog: string;
}

type Ramp = { steps: RampStep[]; knee: number };

export async function benchWebhooks(d: WebhookBenchDeps): Promise<void> {
  // The floor first: its run leaves next to nothing behind, ours may leave a backlog.
  let floor: Ramp | undefined;
  let floorFailed = '';
  try {
    floor = await benchFloor({ ...d, logFile: d.floorLog });
  } catch (err) {
    // Ours still runs; the rows say the floor is missing and why.
    floorFailed = describeError(err);
    process.stderr.write(
      `\nwebhook floor failed: ${err instanceof Error ? (err.stack ?? floorFailed) : floorFailed}\n`,
    );
  }
  const receiver = startReceiver();
  await new Promise<void>((r) => receiver.server.listen(0, '127.0.0.1', () => r()));
  let ours: Ramp;
  try {
    const base = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
    const creds = await createMerchantWithCredential(d.sequelize, { name: 'Bench Loja' }, d.encryptionKey);
    const headers = credentialHeaders(creds);
    const hook = await fetch(`${d.apiUrl}/sellers/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: `${base}/events`, events: ['charge.paid'] }),
      signal: AbortSignal.timeout(15_000),
    });
    if (hook.status !== 201) throw new Error(`webhook registration failed: ${hook.status}`);
    await warmUp(d, headers, receiver);
    ours = await ramp(RATES, (rate) => webhookStep(d, { rate, asked: countAt(rate), headers, receiver }));
  } finally {
    receiver.server.close();
  }
  kneeRows(d, ours, floor, floorFailed);
}

/**
 * A few charges created and paid one at a time, each waited for (at most 30 s), before the ramp,
 * as the floor has its warm-up: first-use costs (the settle path's first run, connections) are
 * not the steady state. Its failures are printed, not counted: the steps count their own.
 */
async function warmUp(d: WebhookBenchDeps, headers: Record<string, string>, receiver: BenchReceiver): Promise<void> {
  const errors = new LoadErrors();
  for (let i = 0; i < 5; i++) {
    const res = await loadFetch(errors, `${d.apiUrl}/sellers/pix`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ amountCents: 900 + i }),
    });
    if (res?.status !== 201) continue;
    const { id } = JSON.parse(res.body.toString('utf8')) as { id: string };
    await loadFetch(errors, `${d.sandboxUrl}/sandbox/charges/${pspChargeRef(id)}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    await d
      .waitUntil(async () => receiver.receivedAt.has(id), 30_000, 'the warm-up charge.paid')
      .catch((err: Error) => {
        if (!err.message.startsWith('timed out')) throw err;
        errors.count('warm-up charge.paid not delivered in 30 s');
      });
  }
  if (errors.total) d.line('warm-up errors (not counted)', errors.summary());
}

function startReceiver(): BenchReceiver {
  const receiver: BenchReceiver = { server: http.createServer(), receivedAt: new Map() };
  receiver.server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      if (req.url === '/events') {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { id: string } };
        if (event.type === 'charge.paid' && !receiver.receivedAt.has(event.data.id))
          receiver.receivedAt.set(event.data.id, at);
      }
      res.writeHead(200).end();
    });
  });
  return receiver;
}

/** "stopped at 40/s: p99 512 ms ≥ 250", or that every rate held (the knee is then at least the last). */
function rampEnd(who: string, r: Ramp): string {
  const last = r.steps.at(-1);
  if (!last) return `${who}: no step`;
  return last.held
    ? `${who} held every rate tried (knee ≥ ${last.rate}/s)`
    : `${who} stopped at ${last.rate}/s: ${last.why}`;
}

/** The table's rows: the curve (one per rate), the knee and the CPU at the highest rate both held. */
function kneeRows(d: WebhookBenchDeps, ours: Ramp, floor: Ramp | undefined, floorFailed: string): void {
  const floorAt = new Map((floor?.steps ?? []).map((s) => [s.rate, s]));
  const oursAt = new Map(ours.steps.map((s) => [s.rate, s]));
  const say = (s: RampStep | undefined) =>
    s ? `${s.deliveredPerS.toFixed(1)}/s, ${s.held ? 'held' : 'NOT held'}` : 'not run';
  for (const rate of RATES) {
    const o = oursAt.get(rate);
    const f = floorAt.get(rate);
    if (!o && !f) continue;
    d.table.add({
      name: `webhook p99 at ${rate}/s × ${countAt(rate)} (ms)`,
      ours: o?.p99 ?? null,
      baseline: f?.p99 ?? null,
      goal: 'the curve (knee below)',
      met: null,
      errors: (o?.errors ?? 0) + (f?.errors ?? 0),
      note: `ours ${say(o)}; floor ${say(f)}`,
    });
  }
  const allErrors = [...ours.steps, ...(floor?.steps ?? [])].reduce((a, s) => a + s.errors, 0);
  const floorNote = floor ? rampEnd('floor', floor) : `the floor failed: ${floorFailed}`;
  d.table.add({
    name: 'webhook knee (paid charges/s)',
    ours: ours.knee,
    baseline: floor ? floor.knee : null,
    goal: '≥ 0.5 × floor',
    met: !!floor && floor.knee > 0 && ours.knee >= 0.5 * floor.knee,
    errors: allErrors,
    note: `${rampEnd('ours', ours)}; ${floorNote}`,
  });
  // The highest rate both held; else (none) the first rate both measured, which then misses.
  const both = ours.steps.filter((s) => s.held && floorAt.get(s.rate)?.held);
  const o = both.at(-1) ?? ours.steps.find((s) => floorAt.has(s.rate)) ?? ours.steps[0];
  const f = o ? floorAt.get(o.rate) : undefined;
  const heldByBoth = both.length > 0;
  d.table.add({
    name: `webhook CPU per paid charge at ${o?.rate ?? '—'}/s (ms)`,
    ours: o?.cpuMs ?? null,
    baseline: f?.cpuMs ?? null,
    goal: '≤ 2 × floor',
    met: heldByBoth && !!o && !!f && o.cpuMs <= 2 * f.cpuMs,
    errors: (o?.errors ?? 0) + (f?.errors ?? 0),
    note: [
      heldByBoth
        ? `at ${o.rate}/s, the highest rate both held`
        : f
          ? `no rate held by both: at ${o.rate}/s, the first both ran`
          : floorNote,
      'ours: api + worker + temporal + postgres; floor: temporal + postgres + floor worker',
    ].join('; '),
  });
}
