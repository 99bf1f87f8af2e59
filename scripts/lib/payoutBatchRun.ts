/**
 * One payout batch of the bench, POST to its end, and its checks (scripts/lib/payoutBench.ts runs
 * them per adapter). The API takes at most MAX_BATCH_ITEMS (10,000) items per batch: a larger
 * BENCH_ITEMS is posted as that many batches of at most 10,000, one after the other, timed from
 * the first POST to the last batch's end (the output says so). After each: every item PAID, the
 * provider's record of each item's reference created exactly once (the sandbox's transferStats:
 * the idEnvio for Efí's send, the item id for its own /v1), the ledger invariant; for Efí the
 * send notices (Efí's webhook per send; a sentPixNotice run for those that may change something)
 * are let finish, so one run's tail does not slow the next.
 */
import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import { Op, type Sequelize } from 'sequelize';
import { signedRequestHeaders } from '../../core/signatures/requestSignature';
import { MAX_BATCH_ITEMS } from '../../core/payouts/limits';
import { idEnvioFor, pspChargeRef } from '../../core/pix/apiPixIds';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { PayoutBatch, PayoutItem } from '../../db/models';
import type { SandboxApp } from '../../sandbox/app';
import { payoutBatchWorkflowId } from '../../workflows/payouts/definitions';
import { sentPixNoticeWorkflow } from '../../workflows/transfers/definitions';
import { ledgerProblems } from './ledgerInvariant';
import { credentialHeaders } from './credentialHeaders';

export type PayoutAdapter = 'efi' | 'sandbox';

export interface BatchRunDeps {
  apiUrl: string;
  sandboxUrl: string;
  sandbox: SandboxApp;
  temporal: Client;
  sequelize: Sequelize;
  settings: { chunkSize: number };
  waitUntil: (probe: () => Promise<boolean>, timeoutMs: number, what: string) => Promise<void>;
}

export interface BatchRun {
  batchIds: string[];
  /** COMPLETED when every part completed, else the first other status. */
  status: string;
  acceptedMs: number;
  /** When its first POST went (epoch ms): with wallMs, the window the host's speed is read in. */
  startedAt: number;
  wallMs: number;
  batchHistory: number;
  largestChunk: number;
}

/** How many batches `n` items take at the API's cap. */
export function batchParts(n: number): number[] {
  const sizes: number[] = [];
  for (let left = n; left > 0; left -= MAX_BATCH_ITEMS) sizes.push(Math.min(left, MAX_BATCH_ITEMS));
  return sizes;
}

/**
 * `n` items, in as many batches as the cap asks, each posted when the one before has ended: as
 * many transfers in flight as one batch of `n` would have (its PAYOUT_PARALLEL_CHUNKS lanes),
 * where batches posted at once would multiply them (and with Efí queue hundreds of sends on the
 * account's few send slots, each wait bounded: SEND_SLOTS_BUSY). The wall time runs from the
 * first POST to the last batch's end; acceptedMs is the slowest POST's answer.
 */
export async function runBatch(d: BatchRunDeps, creds: MerchantCredentials, n: number): Promise<BatchRun> {
  const started = Date.now();
  const batchIds: string[] = [];
  let acceptedMs = 0;
  for (const [part, size] of batchParts(n).entries()) {
    const body = JSON.stringify({
      idempotencyKey: `bench-${crypto.randomUUID()}`,
      items: Array.from({ length: size }, (_, j) => {
        const i = part * MAX_BATCH_ITEMS + j;
        return {
          pixKey: `recebedor${i}@example.com`,
          pixKeyType: 'EMAIL',
          amountCents: 100,
          recipientName: `Recebedor ${i}`,
          referenceId: `bench-${n}-${i}`,
        };
      }),
    });
    const posted = Date.now();
    const created = await signedPost(d.apiUrl, creds, '/v1/payouts/batches', body);
    acceptedMs = Math.max(acceptedMs, Date.now() - posted);
    if (created.status !== 201)
      throw new Error(`batch create failed: ${created.status} ${JSON.stringify(created.body).slice(0, 300)}`);
    const batchId = created.body.batchId as string;
    batchIds.push(batchId);
    await d.waitUntil(
      async () => (await PayoutBatch.findByPk(batchId))!.status !== 'PROCESSING',
      60 * 60_000,
      'batch to finish',
    );
  }
  const wallMs = Date.now() - started;
  const statuses = (await PayoutBatch.findAll({ where: { id: { [Op.in]: batchIds } }, attributes: ['status'] })).map(
    (b) => b.status as string,
  );
  const status = statuses.find((s) => s !== 'COMPLETED') ?? 'COMPLETED';
  let batchHistory = 0;
  let largestChunk = 0;
  for (const [part, batchId] of batchIds.entries()) {
    const handle = d.temporal.workflow.getHandle(payoutBatchWorkflowId(batchId));
    batchHistory = Math.max(batchHistory, (await handle.describe()).historyLength);
    for (let i = 0; i * d.settings.chunkSize < batchParts(n)[part]; i++) {
      const chunk = await d.temporal.workflow
        .getHandle(`${payoutBatchWorkflowId(batchId)}-chunk-${i}`)
        .describe()
        .catch(() => undefined);
      largestChunk = Math.max(largestChunk, chunk?.historyLength ?? 0);
    }
  }
  return { batchIds, status, acceptedMs, startedAt: started, wallMs, batchHistory, largestChunk };
}

export interface RunCheck {
  ok: boolean;
  summary: string;
}

/**
 * Every item of the run PAID, the provider's record of its reference created exactly once (a
 * request answered from its idempotency record or retried still counts in `requests`, not in
 * `created`), and the ledger invariant.
 */
export async function checkRun(d: BatchRunDeps, adapter: PayoutAdapter, run: BatchRun, n: number): Promise<RunCheck> {
  const items = (await PayoutItem.findAll({
    where: { batchId: { [Op.in]: run.batchIds } },
    attributes: ['id', 'status'],
    raw: true,
  })) as unknown as { id: string; status: string }[];
  const stats = d.sandbox.state.transferStats;
  const notPaid = items.filter((i) => i.status !== 'PAID').length;
  let notOnce = 0;
  let requests = 0;
  for (const item of items) {
    const s = stats.get(adapter === 'efi' ? idEnvioFor(item.id) : item.id);
    if (s?.created !== 1) notOnce++;
    requests += s?.requests ?? 0;
  }
  const ledger = await ledgerProblems(d.sequelize);
  const ok = run.status === 'COMPLETED' && items.length === n && notPaid === 0 && notOnce === 0 && !ledger.length;
  const summary = [
    `${items.length - notPaid}/${n} items PAID`,
    `${items.length - notOnce} sent exactly once (${requests} ${adapter === 'efi' ? 'PUTs' : 'POSTs'})`,
    ledger.length ? `ledger: ${ledger.join('; ')}` : 'ledger invariant holds',
  ].join(', ');
  return { ok, summary };
}

/**
 * Waits until every send notice the sandbox had to POST was answered (pendingCallbacks) and no
 * notice's run (sentPixNotice: only the notices that may change something get one) is running,
 * at most 5 minutes; the seconds it took, null when they did not all finish.
 */
export async function noticesFollowed(d: BatchRunDeps): Promise<number | null> {
  const started = Date.now();
  try {
    await d.waitUntil(
      async () => d.sandbox.pendingCallbacks() === 0 && (await countNotices(d, true)) === 0,
      5 * 60_000,
      'the send notices to be followed',
    );
    return (Date.now() - started) / 1000;
  } catch (err) {
    if (!(err as Error).message.startsWith('timed out')) throw err;
    process.stdout.write(
      `send notices: ${d.sandbox.pendingCallbacks()} not yet answered, ${await countNotices(d, true)} runs going after 5 min\n`,
    );
    return null;
  }
}

/** sentPixNotice runs: all there are, or only those running. */
export async function countNotices(d: BatchRunDeps, runningOnly: boolean): Promise<number> {
  const query = `WorkflowType = '${sentPixNoticeWorkflow.name}'${runningOnly ? " AND ExecutionStatus = 'Running'" : ''}`;
  return (await d.temporal.workflow.count(query)).count;
}

async function signedPost(apiUrl: string, creds: MerchantCredentials, p: string, body: string) {
  const res = await fetch(`${apiUrl}${p}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...signedRequestHeaders({ ...creds, method: 'POST', path: p, rawBody: body }),
    },
    body,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A paid Pix charge of `amountCents` to the merchant: the balance the batches draw on. */
export async function fund(d: BatchRunDeps, creds: MerchantCredentials, amountCents: number): Promise<void> {
  const headers = credentialHeaders(creds);
  const res = await fetch(`${d.apiUrl}/sellers/pix`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ amountCents }),
  });
  const charge = (await res.json()) as { id: string };
  await fetch(`${d.sandboxUrl}/sandbox/charges/${pspChargeRef(charge.id)}/pay`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  await d.waitUntil(
    async () => {
      const r = await fetch(`${d.apiUrl}/sellers/pix/${charge.id}`, { headers });
      return ((await r.json()) as { status: string }).status === 'PAID';
    },
    60_000,
    'funding charge paid',
  );
}
