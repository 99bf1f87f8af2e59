/**
 * One step of the webhook part's ramp, ours (scripts/lib/webhookBench.ts): `asked` charges
 * created first, then paid at `rate` through the sandbox provider's callbacks (atRate), and the
 * time from each callback to the merchant's receiver getting charge.paid. Prints the step's
 * details (latency, delivered/s, CPU per paid charge of each process group from the first payment
 * to the last delivery, where the time goes, load errors) and returns it judged
 * (scripts/lib/loadRamp.ts). A pipeline slower than the rate falls behind: the step waits at most
 * DRAIN_MS after the last payment (the backlog drains before what comes next), and what is still
 * missing then counts as not delivered (and as DRAIN_MS in the percentiles, a bound it exceeds).
 */
import type http from 'node:http';
import { QueryTypes } from 'sequelize';
import { percentile, timed } from './benchTable';
import { LoadErrors, loadFetch } from './loadFetch';
import { atRate, DRAIN_MS, judge, type RampStep } from './loadRamp';
import { cpuDeltaMs, cpuSnapshot, perOp } from './processCpu';
import { pspChargeRef } from '../../core/pix/apiPixIds';
import type { WebhookBenchDeps } from './webhookBench';

export interface BenchReceiver {
  server: http.Server;
  /** charge id → when its charge.paid arrived (the first time). */
  receivedAt: Map<string, number>;
}

/** The process groups whose CPU is the gateway's: the bench process (load generator, sandbox) is not ours. */
const OURS = ['api', 'worker', 'temporal', 'postgres'];

export async function webhookStep(
  d: WebhookBenchDeps,
  run: { rate: number; asked: number; headers: Record<string, string>; receiver: BenchReceiver },
): Promise<RampStep> {
  const { rate, headers } = run;
  const receivedAt = new Map<string, number>();
  // The charges to pay; one whose create failed is counted and left out.
  const createErrors = new LoadErrors();
  const created: (string | undefined)[] = new Array<string | undefined>(run.asked);
  await timed(run.asked, 8, async (i) => {
    const res = await loadFetch(createErrors, `${d.apiUrl}/sellers/pix`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ amountCents: 1_000 + i }),
    });
    if (res?.status === 201) created[i] = (JSON.parse(res.body.toString('utf8')) as { id: string }).id;
    else if (res && res.status < 500) createErrors.count(`create ${res.status}`);
  });
  const ids = created.filter((id): id is string => id !== undefined);
  const mine = new Set(ids);
  const seen = run.receiver.receivedAt;
  const firstPaidAt = Date.now();
  const cpuBefore = cpuSnapshot(d.cpuGroups);
  // The provider's callbacks, sent by the sandbox when a charge is paid: what the bench offers.
  const payErrors = new LoadErrors();
  const offered = await atRate(rate, ids.length, (i) =>
    loadFetch(payErrors, `${d.sandboxUrl}/sandbox/charges/${pspChargeRef(ids[i])}/pay`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    }),
  );
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
  const refs = ids.length
    ? await d.sequelize.query<{ id: string; provider_charge_id: string }>(
        `SELECT id, provider_charge_id FROM charges WHERE id IN (:ids)`,
        { replacements: { ids }, type: QueryTypes.SELECT },
      )
    : [];
  const callbackAt = new Map(d.sandbox.state.callbacks.map((c) => [c.chargeId, Date.parse(c.at)]));
  const delays: number[] = [];
  for (const { id, provider_charge_id } of refs) {
    const at = callbackAt.get(provider_charge_id);
    if (at !== undefined) delays.push((receivedAt.get(id) ?? Math.max(lastSentAt + DRAIN_MS, at + DRAIN_MS)) - at);
  }
  // Where the time goes: the callback to the settle commit (the event and its delivery are
  // written by it), then the commit to the receiver; and how many needed a workflow.
  const stages = ids.length
    ? await d.sequelize.query<{ id: string; provider_charge_id: string; event_at: Date; workflow_started: boolean }>(
        `SELECT c.id, c.provider_charge_id, o.created_at AS event_at, w.workflow_started
           FROM charges c JOIN outbox_events o ON o.aggregate_id = c.id::text AND o.type = 'charge.paid' JOIN webhook_deliveries w ON w.event_id = o.id
           WHERE c.id IN (:ids)`,
        { replacements: { ids }, type: QueryTypes.SELECT },
      )
    : [];
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
  const lastReceivedAt = Math.max(firstPaidAt, ...receivedAt.values());
  const deliveredPerS = receivedAt.size / Math.max(0.001, (lastReceivedAt - firstPaidAt) / 1000);
  const cpuMs = OURS.reduce((a, group) => a + (cpu[group] ?? 0), 0) / Math.max(1, receivedAt.size);

  const step = judge({
    rate,
    asked: run.asked,
    sent: ids.length,
    delivered: receivedAt.size,
    offered,
    deliveredPerS,
    p50: percentile(delays, 50),
    p99: percentile(delays, 99),
    cpuMs,
    errors: createErrors.total + payErrors.total,
  });
  process.stdout.write(
    `\nwebhook latency (${delays.length} charges paid at ${rate}/s: provider callback → merchant receives charge.paid)\n`,
  );
  d.line('median', `${step.p50.toFixed(1)} ms`);
  d.line('p99', `${step.p99.toFixed(1)} ms`);
  d.line('max', `${delays.length ? Math.max(...delays) : NaN} ms`);
  if (missing > 0)
    d.line('fell behind', `${missing} of ${ids.length} not delivered ${DRAIN_MS / 1000} s after the last payment`);
  d.line('delivered per second', `${deliveredPerS.toFixed(1)} (payments sent at ${rate}/s)`);
  d.line('CPU per paid charge (ms)', perOp(cpu, Math.max(1, receivedAt.size)));
  d.line('  the gateway (api, worker, temporal, postgres)', `${cpuMs.toFixed(1)} ms`);
  d.line('deliveries that needed a workflow', `${withWorkflow} of ${stages.length}`);
  const stage = (v: number[]) => `p50 ${percentile(v, 50)} ms, p99 ${percentile(v, 99)} ms`;
  d.line('  callback → event committed (settle)', stage(toSettle));
  d.line('  event committed → receiver', stage(toReceiver));
  d.line('payments offered per second', `${offered.toFixed(1)} of ${rate}`);
  d.line('load errors', `creates: ${createErrors.summary()}; payments: ${payErrors.summary()}`);
  d.line('step', step.held ? 'HOLDS' : `does not hold: ${step.why}`);
  return step;
}
