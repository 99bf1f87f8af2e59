/** Helpers for payout tests: signed requests, funding a merchant through real paid charges. */
import { signedRequestHeaders } from '../../core/signatures/requestSignature';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { Merchant } from '../../db/models';
import type { ProviderTransfer } from '../../core/provider';
import type { StackClient } from './integrationStack';
import { waitFor } from './env';
import { refundIdOfDevolucaoId } from '../../core/pix/apiPixIds';

let lastTimestamp = 0;

export async function signedCall(
  stack: StackClient,
  creds: MerchantCredentials,
  method: string,
  path: string,
  body?: unknown,
) {
  const raw = body === undefined ? '' : JSON.stringify(body);
  // A real client signs each request afresh; two identical requests in one millisecond would
  // carry the same signature and the second would be refused as a replay.
  const ts = (lastTimestamp = Math.max(Date.now(), lastTimestamp + 1));
  const headers = signedRequestHeaders({ ...creds, method, path, rawBody: raw, timestampMs: ts });
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${stack.apiUrl}${path}`, { method, headers, body: body === undefined ? undefined : raw });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** Gives the merchant available balance the way production does: a Pix charge, paid. Returns the net credited. */
export async function fundByPaidCharge(
  stack: StackClient,
  creds: MerchantCredentials,
  amountCents: number,
): Promise<void> {
  const created = await stack.api('POST', '/sellers/pix', { creds, body: { amountCents } });
  if (created.status !== 201)
    throw new Error(`funding charge failed: ${created.status} ${JSON.stringify(created.body)}`);
  await stack.pay(created.body.id);
  await waitFor(
    async () => (await stack.api('GET', `/sellers/pix/${created.body.id}`, { creds })).body.status === 'PAID',
    'funding charge paid',
  );
}

export async function payoutMerchant(
  stack: StackClient,
  opts: { feeCents?: number; name?: string } = {},
): Promise<MerchantCredentials> {
  const creds = await stack.createMerchant({ name: opts.name ?? 'Pagadora', payoutsEnabled: true });
  await Merchant.update({ payoutFeeCents: opts.feeCents ?? 0 }, { where: { id: creds.merchantId } });
  return creds;
}

export function items(n: number, opts: { amountCents?: number; failEvery?: number } = {}) {
  return Array.from({ length: n }, (_, i) => ({
    pixKey: opts.failEvery && i % opts.failEvery === 0 ? `invalid${i}@example.com` : `recebedor${i}@example.com`,
    pixKeyType: 'EMAIL',
    amountCents: opts.amountCents ?? 1_000,
    recipientName: `Recebedor ${i}`,
    referenceId: `ref-${i}`,
  }));
}

export async function waitForBatchEnd(
  stack: StackClient,
  creds: MerchantCredentials,
  batchId: string,
  timeoutMs = 60_000,
) {
  return waitFor(
    async () => {
      const res = await signedCall(stack, creds, 'GET', `/v1/payouts/batches/${batchId}`);
      return res.body?.status && res.body.status !== 'PROCESSING' ? res.body : null;
    },
    `batch ${batchId} to finish`,
    timeoutMs,
  );
}

/**
 * Every transfer and devolução the stack's sandbox made, in order (its own record, over HTTP). An
 * API Pix devolução is recorded under its devolução id, devolucaoIdFor(refund id): shown here
 * under the refund id it was made for, as the tests name it.
 */
export async function sandboxTransferList(stack: StackClient): Promise<ProviderTransfer[]> {
  const res = await fetch(`${stack.sandboxUrl}/sandbox/transfers`);
  return ((await res.json()) as { transfers: ProviderTransfer[] }).transfers.map((t) => ({
    ...t,
    reference: ourReference(t.reference),
  }));
}

export async function sandboxTransfers(
  stack: StackClient,
): Promise<Record<string, { requests: number; created: number }>> {
  const res = await fetch(`${stack.sandboxUrl}/sandbox/transfers`);
  const references = ((await res.json()) as { references: Record<string, { requests: number; created: number }> })
    .references;
  return Object.fromEntries(Object.entries(references).map(([reference, stats]) => [ourReference(reference), stats]));
}

/** A devolução id of ours as the refund id it was derived from; any other reference as it is. */
function ourReference(reference: string): string {
  return refundIdOfDevolucaoId(reference) ?? reference;
}

/**
 * The seed of a test's random fault draws: FAULT_SEED when set (to replay a failure), else a new
 * one. `withFaultSeed` names it in the failure, so every failing run can be replayed.
 */
export function faultSeed(): number {
  const given = process.env.FAULT_SEED;
  return given ? Number(given) : Math.floor(Math.random() * 4_294_967_295);
}

export async function withFaultSeed<T>(seed: number, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof Error) err.message = `[fault seed ${seed}: replay with FAULT_SEED=${seed}] ${err.message}`;
    throw err;
  }
}

export async function setFaults(
  stack: StackClient,
  faults: { errorRate?: number; latencyMs?: number; timeoutRate?: number; failFirst?: number; seed?: number } | null,
) {
  await fetch(`${stack.sandboxUrl}/sandbox/faults`, {
    method: faults ? 'POST' : 'DELETE',
    headers: { 'content-type': 'application/json' },
    body: faults ? JSON.stringify(faults) : undefined,
  });
}
