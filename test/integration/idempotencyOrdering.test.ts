/**
 * Idempotency keys against the real stack: a same-key retry
 * replays the stored answer even when checks that depend on time would now refuse it; a payout
 * key reused after its record expired answers 409, never 500; a slow holder keeps its claim.
 */
import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { IdempotencyService, runIdempotent } from '../../api/idempotency/idempotencyService';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { assertLedgerInvariant } from '../support/ledger';
import { testLogger } from '../support/testLogs';
import { fundByPaidCharge, items, payoutMerchant, signedCall, waitForBatchEnd } from '../support/payouts';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';

jest.setTimeout(120_000);

let stack: SharedStack;
let seller: MerchantCredentials;

beforeAll(async () => {
  stack = await sharedIntegrationStack();
  seller = await stack.createMerchant({ name: 'Loja Idempotente' });
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the claim comes before checks that depend on time', () => {
  it('replays a charge whose expiresAt is no longer far enough ahead', async () => {
    const key = `key-${crypto.randomUUID()}`;
    const body = { amountCents: 2_500, description: 'Pedido', expiresAt: new Date(Date.now() + 61_500).toISOString() };
    const first = await stack.api('POST', '/sellers/pix', {
      creds: seller,
      body,
      headers: { 'x-idempotency-key': key },
    });
    expect(first.status).toBe(201);
    await sleep(2_000); // expiresAt is now less than the minimum minute away
    const retry = await stack.api('POST', '/sellers/pix', {
      creds: seller,
      body,
      headers: { 'x-idempotency-key': key },
    });
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.body.id).toBe(first.body.id);
    const [{ n }] = await stack.sequelize.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM charges WHERE idempotency_key = :key`,
      {
        replacements: { key },
        type: QueryTypes.SELECT,
      },
    );
    expect(n).toBe(1);
  });
});

describe('a payout idempotencyKey reused after its record expired', () => {
  it('answers 409 DUPLICATE_IDEMPOTENCY_KEY on every retry and creates no second batch', async () => {
    const merchant = await payoutMerchant(stack, { feeCents: 0 });
    await fundByPaidCharge(stack, merchant, 50_000);
    const body = { idempotencyKey: `batch-${crypto.randomUUID()}`, items: items(1, { amountCents: 1_000 }) };
    const created = await signedCall(stack, merchant, 'POST', '/v1/payouts/batches', body);
    expect(created.status).toBe(201);
    await waitForBatchEnd(stack, merchant, created.body.batchId);

    // The record's 24 h are over: the sweep deleted it.
    await stack.sequelize.query(`DELETE FROM idempotency_records WHERE key = :key`, {
      replacements: { key: body.idempotencyKey },
    });
    for (const attempt of [1, 2]) {
      const reused = await signedCall(stack, merchant, 'POST', '/v1/payouts/batches', body);
      expect({ attempt, status: reused.status, code: reused.body?.error?.code }).toEqual({
        attempt,
        status: 409,
        code: 'DUPLICATE_IDEMPOTENCY_KEY',
      });
      expect(reused.body.error.details).toEqual({ batchId: created.body.batchId });
    }
    const [{ n }] = await stack.sequelize.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM payout_batches WHERE idempotency_key = :key`,
      {
        replacements: { key: body.idempotencyKey },
        type: QueryTypes.SELECT,
      },
    );
    expect(n).toBe(1);
  });
});

describe('a slow holder keeps its claim', () => {
  it('extends its lock while working: a concurrent duplicate waits and replays, the work runs once', async () => {
    // A 3 s lock extended every second: only a stall of 2 s (not a loaded machine's pauses) could lose it.
    const service = new IdempotencyService(stack.sequelize, {
      ttlHours: 24,
      lockSeconds: 3,
      waitMs: 15_000,
      logger: testLogger('idempotency-test'),
    });
    const ref = {
      merchantId: seller.merchantId,
      scope: 'TEST slow holder',
      key: `key-${crypto.randomUUID()}`,
      request: { n: 1 },
      newResourceId: crypto.randomUUID(),
    };
    let runs = 0;
    const work = async (resourceId: string) => {
      runs++;
      await sleep(7_000); // well past the 3 s lock
      return { status: 201, body: { resourceId } };
    };
    const first = runIdempotent(service, ref, work);
    await sleep(4_000); // the first lock would have run out by now, had it not been extended
    const second = await runIdempotent(service, { ...ref, newResourceId: crypto.randomUUID() }, work);
    const firstResult = await first;
    expect(runs).toBe(1);
    expect(firstResult.replay).toBe(false);
    expect(second).toEqual({ status: 201, body: firstResult.body, replay: true });
  });

  it('does not let a holder that lost its claim overwrite the answer of the one that took over', async () => {
    const service = new IdempotencyService(stack.sequelize, {
      ttlHours: 24,
      lockSeconds: 1,
      waitMs: 10_000,
      logger: testLogger('idempotency-test'),
    });
    const keyRef = { merchantId: seller.merchantId, scope: 'TEST lost claim', key: `key-${crypto.randomUUID()}` };
    const stale = await service.claim({ ...keyRef, requestHash: 'h', newResourceId: 'r1' });
    if (stale.kind !== 'owner') throw new Error('expected to own the key');
    await sleep(1_200); // the stale holder stopped extending (it died): its lock ran out
    const taker = await service.claim({ ...keyRef, requestHash: 'h', newResourceId: 'r2' });
    if (taker.kind !== 'owner') throw new Error('expected a takeover');
    expect(taker.takenOver).toBe(true);
    await service.complete({ ...keyRef, holder: taker.holder, status: 201, body: { by: 'taker' } });
    await service.complete({ ...keyRef, holder: stale.holder, status: 201, body: { by: 'stale' } });
    await service.release({ ...keyRef, holder: stale.holder });
    const replay = await service.claim({ ...keyRef, requestHash: 'h', newResourceId: 'r3' });
    expect(replay).toMatchObject({ kind: 'replay', status: 201, body: { by: 'taker' } });
  });
});
