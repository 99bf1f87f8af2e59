/**
 * The lease of an idempotency key's holder: short, and renewed while the request works. A
 * request whose API process died (it stops renewing) is taken over by a same-key retry within
 * the lease, on the same resource id; a live request slower than the lease is never taken over.
 */
import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { fingerprint, IdempotencyService, runIdempotent } from '../../api/idempotency/idempotencyService';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { testLogger } from '../support/testLogs';

jest.setTimeout(120_000);

let stack: SharedStack;
let seller: MerchantCredentials;
/** Made as api/app.ts makes the API's: the default lease. */
let service: IdempotencyService;

beforeAll(async () => {
  stack = await sharedIntegrationStack();
  seller = await stack.createMerchant({ name: 'Loja do Arrendamento' });
  service = new IdempotencyService(stack.sequelize, { ttlHours: 24, logger: testLogger('idempotency-test') });
});

afterAll(async () => {
  await stack?.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('takes over the key of a request whose API died, within the lease, and finishes it on the same charge id', async () => {
  const key = `key-${crypto.randomUUID()}`;
  const body = { amountCents: 1_500, description: 'Pedido do arrendamento' };
  // What POST /sellers/pix claims before it works; then its process dies: nothing renews the claim.
  const dead = await service.claim({
    merchantId: seller.merchantId,
    scope: 'POST /sellers/pix',
    key,
    requestHash: fingerprint(body),
    newResourceId: crypto.randomUUID(),
  });
  if (dead.kind !== 'owner') throw new Error('expected to own the key');

  // A retry waits while the claim is locked (up to 30 s, then 503): it must outlast the lease.
  const retry = await stack.api('POST', '/sellers/pix', { creds: seller, body, headers: { 'x-idempotency-key': key } });
  expect({ status: retry.status, id: retry.body.id }).toEqual({ status: 201, id: dead.resourceId });
  const again = await stack.api('POST', '/sellers/pix', { creds: seller, body, headers: { 'x-idempotency-key': key } });
  expect({ status: again.status, id: again.body.id, replayed: again.headers.get('idempotent-replayed') }).toEqual({
    status: 201,
    id: dead.resourceId,
    replayed: 'true',
  });
  const [{ n }] = await stack.sequelize.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM charges WHERE idempotency_key = :key`,
    { replacements: { key }, type: QueryTypes.SELECT },
  );
  expect(n).toBe(1);
});

it('never takes over a live request that runs longer than the lease: a retry waits and replays its answer', async () => {
  const ref = {
    merchantId: seller.merchantId,
    scope: 'TEST live holder',
    key: `key-${crypto.randomUUID()}`,
    request: { n: 1 },
    newResourceId: crypto.randomUUID(),
  };
  const leaseMs = service.lockSeconds * 1000;
  let runs = 0;
  const work = async (resourceId: string) => {
    runs++;
    await sleep(leaseMs + 5_000); // past the lease: only its renewals keep the claim
    return { status: 201, body: { resourceId } };
  };
  const first = runIdempotent(service, ref, work);
  await sleep(leaseMs + 2_000); // the first lease would have run out by now, had it not been renewed
  const retry = await runIdempotent(service, { ...ref, newResourceId: crypto.randomUUID() }, work);
  const firstResult = await first;
  expect(runs).toBe(1);
  expect(firstResult).toEqual({ status: 201, body: { resourceId: ref.newResourceId }, replay: false });
  expect(retry).toEqual({ status: 201, body: firstResult.body, replay: true });
});

it("never frees a taken-over claim on a refusal: the first holder's effect may exist", async () => {
  const ref = {
    merchantId: seller.merchantId,
    scope: 'TEST taken-over refusal',
    key: `key-${crypto.randomUUID()}`,
    request: { n: 2 },
  };
  const dead = await service.claim({
    ...ref,
    requestHash: fingerprint(ref.request),
    newResourceId: crypto.randomUUID(),
  });
  if (dead.kind !== 'owner') throw new Error('expected to own the key');
  await stack.sequelize.query(
    `UPDATE idempotency_records SET locked_until = now() - interval '1 second' WHERE key = :key`,
    { replacements: { key: ref.key } },
  );
  const refused = Object.assign(new Error('a gate the first holder passed'), { status: 403 });
  let resumedOn: { resourceId: string; resuming: boolean } | undefined;
  await expect(
    runIdempotent(service, { ...ref, newResourceId: crypto.randomUUID() }, async (resourceId, resuming) => {
      resumedOn = { resourceId, resuming };
      throw refused;
    }),
  ).rejects.toBe(refused);
  expect(resumedOn).toEqual({ resourceId: dead.resourceId, resuming: true });
  // Still bound to the first holder's resource id: the next retry resumes it, never a new one.
  const [record] = await stack.sequelize.query<{ resource_id: string; state: string }>(
    `SELECT resource_id, state FROM idempotency_records WHERE key = :key`,
    { replacements: { key: ref.key }, type: QueryTypes.SELECT },
  );
  expect(record).toEqual({ resource_id: dead.resourceId, state: 'IN_PROGRESS' });
  const next = await runIdempotent(service, { ...ref, newResourceId: crypto.randomUUID() }, async (resourceId) => ({
    status: 201,
    body: { resourceId },
  }));
  expect(next).toEqual({ status: 201, body: { resourceId: dead.resourceId }, replay: false });
});
