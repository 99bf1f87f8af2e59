/**
 * One idempotency key, one effect, whatever happens to the request that held it.
 * A holder that stalls or dies after its effect exists loses its 10 s lease; the same-key retry
 * that takes the claim over must answer that effect (before any second-factor check, which the
 * first holder already passed), and must never free the key on a refusal. Even with every API
 * guard gone (the claim deleted), the key is bound to its row in the database: a refund, a
 * settlement or a withdrawal made again under the same key answers the first one and moves no
 * money. Asserts HTTP answers, rows, the provider's own records and the ledger invariant.
 */
import crypto from 'node:crypto';
import { QueryTypes } from 'sequelize';
import { authenticator } from 'otplib';
import { AppClient } from '../support/appClient';
import { waitFor } from '../support/env';
import { assertLedgerInvariant } from '../support/ledger';
import { sandboxTransfers } from '../support/payouts';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { signedInMerchant, type SignedInMerchant } from '../support/signedIn';
import { startReceiver, type Receiver } from '../support/receiver';
import { decryptSecret } from '../../core/crypto/secretBox';
import { setMerchantPixKey, type MerchantCredentials } from '../../db/identity/merchantAdmin';
import { createSequelize } from '../../db/sequelize';
import { affectedRows } from '../../db/affectedRows';

jest.setTimeout(300_000);

let stack: SharedStack;

beforeAll(async () => {
  stack = await sharedIntegrationStack();
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(async () => {
  await assertLedgerInvariant(stack.sequelize);
});

const newKey = (prefix: string) => `${prefix}-${crypto.randomUUID()}`;
const rows = <T extends object = any>(sql: string, replacements: Record<string, unknown> = {}): Promise<T[]> =>
  stack.sequelize.query<T>(sql, { replacements, type: QueryTypes.SELECT });

/**
 * The state a holder leaves when it stalled (or died) after its effect was made and before it
 * stored the answer: IN_PROGRESS, another holder's, its lease run out.
 */
async function holderLostItsLease(key: string): Promise<void> {
  const [, meta] = await stack.sequelize.query(
    `UPDATE idempotency_records SET state = 'IN_PROGRESS', holder = :holder, response_status = NULL,
       response_body = NULL, locked_until = now() - interval '1 second' WHERE key = :key`,
    { replacements: { key, holder: crypto.randomUUID() } },
  );
  expect(affectedRows(meta)).toBe(1);
}

/** Every API guard gone: the claim itself deleted (a lost record, an expiry, a bug). */
async function claimLost(key: string): Promise<void> {
  await stack.sequelize.query(`DELETE FROM idempotency_records WHERE key = :key`, { replacements: { key } });
}

/** An owner with TOTP on and `n` action tokens for `action`, each confirmed with a recovery code. */
async function ownerWithActionTokens(
  action: 'refund' | 'settlement',
  n: number,
): Promise<SignedInMerchant & { tokens: string[] }> {
  const owner = await signedInMerchant(stack, { emailPrefix: 'takeover', name: 'Loja Retomada' });
  const setup = await owner.client.call('POST', '/auth/2fa/totp/setup');
  const confirm = await owner.client.call('POST', '/auth/2fa/totp/confirm', {
    body: { code: authenticator.generate(setup.body.secret) },
  });
  expect(confirm.status).toBe(200);
  const tokens: string[] = [];
  for (let i = 0; i < n; i++) {
    const start = await owner.client.call('POST', '/auth/2fa/action/start', { body: { action } });
    const confirmed = await owner.client.call('POST', '/auth/2fa/action/confirm', {
      body: { challengeId: start.body.challengeId, code: confirm.body.recoveryCodes[i] },
    });
    expect(confirmed.status).toBe(200);
    tokens.push(confirmed.body.actionToken);
  }
  return { ...owner, tokens };
}

async function paidCharge(owner: SignedInMerchant, amountCents: number): Promise<string> {
  const created = await owner.client.call('POST', '/charges', {
    body: { merchantId: owner.merchantId, amountCents },
    headers: { 'x-idempotency-key': newKey('fund') },
  });
  expect(created.status).toBe(201);
  await stack.pay(created.body.id);
  await waitFor(
    async () => (await owner.client.call('GET', `/charges/${created.body.id}`)).body.status === 'PAID',
    'charge PAID',
  );
  return created.body.id;
}

async function refundsUnder(chargeId: string) {
  return waitFor(async () => {
    const found = await rows<{ id: string; amount_cents: number; status: string; idempotency_key: string }>(
      `SELECT id, amount_cents::int, status, idempotency_key FROM refunds WHERE charge_id = :chargeId ORDER BY created_at`,
      { chargeId },
    );
    return found.every((r) => r.status !== 'PROCESSING') ? found : undefined;
  }, 'refunds settled');
}

describe('refunds', () => {
  it("a same-key retry that takes over answers the first holder's refund (no 403, no key freed); nothing refunds twice", async () => {
    const owner = await ownerWithActionTokens('refund', 2);
    const [t1, t2] = owner.tokens;
    const chargeId = await paidCharge(owner, 10_000);
    const key = newKey('refund');
    const body = { amountCents: 3_000, reason: 'um reembolso parcial' };
    const refund = (token: string) =>
      owner.client.call('POST', `/charges/${chargeId}/refund`, {
        body,
        headers: { 'x-idempotency-key': key, 'x-action-token': token },
      });

    const first = await refund(t1);
    expect(first.status).toBe(200);
    const [r1] = first.body.refunds;

    // The holder stalled after reserving: the client's retry (same key, same headers) takes over.
    await holderLostItsLease(key);
    const retry = await refund(t1);
    expect({ status: retry.status, refunds: retry.body.refunds?.map((r: { id: string }) => r.id) }).toEqual({
      status: 200,
      refunds: [r1.id],
    });
    expect(await rows(`SELECT 1 FROM idempotency_records WHERE key = :key`, { key })).toHaveLength(1);

    // The key is bound to the refund in the database: with the claim gone, a fresh token and the
    // same key still find the first refund and reserve nothing.
    await claimLost(key);
    const again = await refund(t2);
    expect({ status: again.status, refunds: again.body.refunds?.map((r: { id: string }) => r.id) }).toEqual({
      status: 200,
      refunds: [r1.id],
    });

    const settled = await refundsUnder(chargeId);
    expect(settled).toEqual([{ id: r1.id, amount_cents: 3_000, status: 'SUCCEEDED', idempotency_key: key }]);
    expect((await sandboxTransfers(stack))[r1.id]).toMatchObject({ created: 1 });
  });

  it('a taken-over claim is never freed by a refusal', async () => {
    const owner = await ownerWithActionTokens('refund', 1);
    const chargeId = await paidCharge(owner, 5_000);
    const key = newKey('refund-refused');
    const body = { amountCents: 1_000, reason: 'reembolso' };
    const first = await owner.client.call('POST', `/charges/${chargeId}/refund`, {
      body,
      headers: { 'x-idempotency-key': key, 'x-action-token': owner.tokens[0] },
    });
    expect(first.status).toBe(200);
    // A takeover whose first step refuses (here: no action token at all; the refund exists and
    // is answered first, so even this retry gets it).
    await holderLostItsLease(key);
    const bare = await owner.client.call('POST', `/charges/${chargeId}/refund`, {
      body,
      headers: { 'x-idempotency-key': key },
    });
    expect(bare.status).toBe(200);
    expect(bare.body.refunds.map((r: { id: string }) => r.id)).toEqual([first.body.refunds[0].id]);
    expect(await rows(`SELECT 1 FROM idempotency_records WHERE key = :key`, { key })).toHaveLength(1);
    await refundsUnder(chargeId);
  });

  it('a holder whose API stalls past its lease, retried at another API (same token, then a fresh one): one refund, named by all three answers', async () => {
    const owner = await ownerWithActionTokens('refund', 2);
    const [t1, t2] = owner.tokens;
    const chargeId = await paidCharge(owner, 10_000);
    // API instance 1: its own pool of 2 connections, so the test can stall it.
    const cfg = stack.sequelize.config;
    const pool1 = createSequelize(
      `postgres://${encodeURIComponent(cfg.username)}:${encodeURIComponent(String(cfg.password ?? ''))}@${cfg.host}:${cfg.port}/${cfg.database}`,
      { poolMax: 2 },
    );
    const api1 = await stack.extraApi({ sequelize: pool1 });
    try {
      const client1 = new AppClient(api1.url);
      client1.accessToken = owner.client.accessToken;
      const key = newKey('rv3-m1');
      const body = { amountCents: 3_000, reason: 'um reembolso parcial' };
      const call = (client: AppClient, token: string) =>
        client.call('POST', `/charges/${chargeId}/refund`, {
          body,
          headers: { 'x-idempotency-key': key, 'x-action-token': token },
        });

      // Hold the merchant row so the worker's reservation waits while A is in flight.
      const lock = await stack.sequelize.transaction();
      await stack.sequelize.query(`SELECT id FROM merchants WHERE id = :id FOR NO KEY UPDATE`, {
        replacements: { id: owner.merchantId },
        transaction: lock,
      });
      const aPromise = call(client1, t1);
      const r1 = await waitFor(
        async () =>
          (
            await rows<{ resource_id: string }>(
              `SELECT resource_id FROM idempotency_records WHERE key = :key AND state = 'IN_PROGRESS'`,
              { key },
            )
          )[0]?.resource_id,
        'claim of A',
      );
      await waitFor(
        async () =>
          stack.temporal.workflow
            .getHandle(`refund-${r1}`)
            .describe()
            .then(
              () => true,
              () => false,
            ),
        'refund workflow of A',
      );
      // API 1 stalls: both of its pool connections taken; its renewals and its request wait.
      const held = [await pool1.transaction(), await pool1.transaction()];
      await lock.commit();
      await waitFor(async () => (await rows(`SELECT id FROM refunds WHERE id = :id`, { id: r1 })).length === 1, 'R1');
      await waitFor(
        async () =>
          (await rows(`SELECT 1 FROM idempotency_records WHERE key = :key AND locked_until <= now()`, { key }))
            .length === 1,
        'lease of A expired',
        120_000,
      );
      // B: the client's retry (same key, same token) at the other API instance.
      const b = await call(owner.client, t1);
      // C: a fresh token, the same key.
      const c = await call(owner.client, t2);
      for (const t of held) await t.rollback();
      const a = await aPromise;
      for (const answer of [a, b, c]) {
        expect(answer.status).toBe(200);
        expect(answer.body.refunds.map((r: { id: string }) => r.id)).toEqual([r1]);
      }
      const settled = await refundsUnder(chargeId);
      expect(settled).toEqual([{ id: r1, amount_cents: 3_000, status: 'SUCCEEDED', idempotency_key: key }]);
      expect((await sandboxTransfers(stack))[r1]).toMatchObject({ created: 1 });
    } finally {
      await api1.close();
      await pool1.close();
    }
  });

  it('the database refuses a second refund row under one key of one charge', async () => {
    const indexes = await rows<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE tablename = 'refunds' AND indexdef LIKE 'CREATE UNIQUE INDEX%'`,
    );
    expect(indexes.map((i) => i.indexdef).join('\n')).toMatch(/\(charge_id, idempotency_key\)/);
  });
});

describe('settlements', () => {
  it('a takeover answers the existing settlement before any second factor; with the claim gone the key still finds it', async () => {
    const owner = await ownerWithActionTokens('settlement', 2);
    const [t1, t2] = owner.tokens;
    await setMerchantPixKey(stack.sequelize, owner.merchantId, {
      key: `repasse+${crypto.randomUUID().slice(0, 8)}@loja.com.br`,
      type: 'EMAIL',
    });
    await paidCharge(owner, 10_000);
    const key = newKey('settle');
    const settle = (token: string) =>
      owner.client.call('POST', '/settlements', {
        body: { merchantId: owner.merchantId, amountCents: 2_000 },
        headers: { 'x-idempotency-key': key, 'x-action-token': token },
      });
    const first = await settle(t1);
    expect(first.status).toBe(201);

    await holderLostItsLease(key);
    const retry = await settle(t1);
    expect({ status: retry.status, id: retry.body.id }).toEqual({ status: 201, id: first.body.id });
    expect(await rows(`SELECT 1 FROM idempotency_records WHERE key = :key`, { key })).toHaveLength(1);

    await claimLost(key);
    const again = await settle(t2);
    expect({ status: again.status, id: again.body.id }).toEqual({ status: 201, id: first.body.id });

    const settlements = await rows(`SELECT id FROM settlements WHERE merchant_id = :m`, { m: owner.merchantId });
    expect(settlements).toEqual([{ id: first.body.id }]);
    const withdrawals = await waitFor(async () => {
      const found = await rows<{ id: string; status: string }>(
        `SELECT id, status FROM withdrawals WHERE merchant_id = :m`,
        { m: owner.merchantId },
      );
      return found.every((w) => w.status !== 'PROCESSING') ? found : undefined;
    }, 'settlement finished');
    expect(withdrawals).toEqual([{ id: first.body.withdrawalId, status: 'COMPLETED' }]);
    expect((await sandboxTransfers(stack))[first.body.withdrawalId]).toMatchObject({ created: 1 });
  });
});

describe('withdrawals', () => {
  it('with the claim gone, a same-key request answers the first withdrawal and debits nothing more', async () => {
    const creds = await stack.createMerchant({
      name: 'Loja Saque Retomado',
      document: '11144477735',
      pixKey: `financeiro+${crypto.randomUUID().slice(0, 8)}@loja-saque.com.br`,
      pixKeyType: 'EMAIL',
    });
    const charge = await stack.api('POST', '/sellers/pix', { creds, body: { amountCents: 20_000 } });
    expect(charge.status).toBe(201);
    await stack.pay(charge.body.id);
    await waitFor(
      async () => (await stack.api('GET', `/sellers/pix/${charge.body.id}`, { creds })).body?.status === 'PAID',
      'charge PAID',
    );
    const key = newKey('saque');
    const withdraw = () =>
      stack.api('POST', '/sellers/saques', {
        creds,
        body: { amountCents: 5_000, description: 'Saque' },
        headers: { 'x-idempotency-key': key },
      });
    const first = await withdraw();
    expect(first.status).toBe(201);
    await claimLost(key);
    const again = await withdraw();
    expect({ status: again.status, id: again.body.id }).toEqual({ status: 201, id: first.body.id });
    const withdrawals = await waitFor(async () => {
      const found = await rows<{ id: string; status: string }>(
        `SELECT id, status FROM withdrawals WHERE merchant_id = :m`,
        { m: creds.merchantId },
      );
      return found.every((w) => w.status !== 'PROCESSING') ? found : undefined;
    }, 'withdrawal finished');
    expect(withdrawals).toEqual([{ id: first.body.id, status: 'COMPLETED' }]);
  });
});

describe('webhook resend and rotate-secret: keyed by the claim, not made again on a takeover', () => {
  let receiver: Receiver;
  let seller: MerchantCredentials;
  beforeAll(async () => {
    receiver = await startReceiver();
    seller = await stack.createMerchant({ name: 'Loja Eventos Retomados' });
  });
  afterAll(async () => {
    await receiver?.close();
  });

  async function register(path: string) {
    const res = await stack.api('POST', '/sellers/webhooks', {
      creds: seller,
      body: { url: `${receiver.url}${path}`, events: ['charge.paid'] },
    });
    expect(res.status).toBe(201);
    return res.body as { id: string; secret: string };
  }

  it('a resend taken over after its holder made the delivery answers that delivery; no second one', async () => {
    const hook = await register('/resend-takeover');
    const charge = await stack.api('POST', '/sellers/pix', { creds: seller, body: { amountCents: 1_000 } });
    await stack.pay(charge.body.id);
    const original = await waitFor(
      async () =>
        (await stack.api('GET', `/sellers/webhooks/${hook.id}/deliveries`, { creds: seller })).body.deliveries?.[0],
      'first delivery',
    );
    const key = newKey('resend');
    const resend = () =>
      stack.api('POST', `/sellers/webhook-deliveries/${original.id}/resend`, {
        creds: seller,
        headers: { 'x-idempotency-key': key },
      });
    const first = await resend();
    expect(first.status).toBe(201);
    await holderLostItsLease(key);
    const retry = await resend();
    expect({ status: retry.status, id: retry.body.id }).toEqual({ status: 201, id: first.body.id });
    const resends = await rows(`SELECT id FROM webhook_deliveries WHERE resend_of = :id`, { id: original.id });
    expect(resends).toEqual([{ id: first.body.id }]);
  });

  it("a rotation taken over after its holder rotated answers that rotation's secret; the oldest keeps its overlap", async () => {
    const hook = await register('/rotate-takeover');
    const key = newKey('rotate');
    const rotate = () =>
      stack.api('POST', `/sellers/webhooks/${hook.id}/rotate-secret`, {
        creds: seller,
        headers: { 'x-idempotency-key': key },
      });
    const first = await rotate();
    expect(first.status).toBe(200);
    await holderLostItsLease(key);
    const retry = await rotate();
    expect({ status: retry.status, secret: retry.body.secret }).toEqual({ status: 200, secret: first.body.secret });
    const [row] = await rows<{ secret_ciphertext: string; previous_secret_ciphertext: string }>(
      `SELECT secret_ciphertext, previous_secret_ciphertext FROM webhook_endpoints WHERE id = :id`,
      { id: hook.id },
    );
    expect(decryptSecret(row.secret_ciphertext, Buffer.from(stack.encryptionKey, 'hex'))).toBe(first.body.secret);
    // Still the secret from before the rotation: receivers that verify with it keep working.
    expect(decryptSecret(row.previous_secret_ciphertext, Buffer.from(stack.encryptionKey, 'hex'))).toBe(hook.secret);
  });
});
