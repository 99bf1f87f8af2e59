/**
 * /charges of the application API over HTTP against the real stack (sandbox provider over HTTP,
 * worker, PostgreSQL): create with an idempotency key, pay in the sandbox, read PAID here and on
 * the seller API, cancel, list with filters and pages, roles, and another merchant's charge 404.
 */
import crypto from 'node:crypto';
import { waitFor } from '../support/env';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { assertLedgerInvariant } from '../support/ledger';
import { signedInMerchant, signedInUser } from '../support/signedIn';

jest.setTimeout(120_000);

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

const owner = () => signedInMerchant(stack, { emailPrefix: 'owner', name: 'Loja App' });

const key = () => ({ 'x-idempotency-key': `app-${crypto.randomUUID()}` });

// The spec's fields, plus the refunds the issue adds (refunds[], refundedAmountCents).
const CHARGE_FIELDS = [
  'amountCents',
  'boleto',
  'createdAt',
  'currency',
  'description',
  'expiresAt',
  'externalRef',
  'id',
  'idempotencyKey',
  'merchantId',
  'metadata',
  'method',
  'pix',
  'refundedAmountCents',
  'refunds',
  'status',
  'updatedAt',
];

it('creates a Pix charge (the spec’s Charge object exactly), replays it by key, refuses a changed body and a missing key', async () => {
  const { client, merchantId } = await owner();
  const headers = key();
  const body = {
    merchantId,
    amountCents: 2_500,
    description: 'Pedido 42',
    externalRef: 'pedido-42',
    metadata: { canal: 'app' },
    payer: { name: 'Bia Souza', taxId: '529.982.247-25', email: 'bia@example.com' },
  };
  const res = await client.call('POST', '/charges', { body, headers });
  expect(res.status).toBe(201);
  expect(Object.keys(res.body).sort()).toEqual(CHARGE_FIELDS);
  expect(res.body).toMatchObject({
    merchantId,
    amountCents: 2_500,
    currency: 'BRL',
    status: 'PENDING',
    method: 'PIX',
    idempotencyKey: headers['x-idempotency-key'],
    externalRef: 'pedido-42',
    boleto: null,
  });
  expect(res.body.pix.copyPaste).toMatch(/^000201/);
  expect(res.body.pix.qrCode.length).toBeGreaterThan(100);
  const replay = await client.call('POST', '/charges', { body, headers });
  expect(replay.status).toBe(201);
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body.id).toBe(res.body.id);
  const changed = await client.call('POST', '/charges', { body: { ...body, amountCents: 2_600 }, headers });
  expect(changed.status).toBe(409);
  expect(changed.body.error.code).toBe('DUPLICATE_IDEMPOTENCY_KEY');
  const noKey = await client.call('POST', '/charges', { body });
  expect(noKey.status).toBe(400);
  expect(noKey.body.error.code).toBe('IDEMPOTENCY_KEY_REQUIRED');
  // BOLETO charges: test/integration/boletoCharges.test.ts.
  const bad = await client.call('POST', '/charges', {
    body: { merchantId, amountCents: 0, currency: 'USD', payer: { name: 'X', taxId: '111.111.111-11' } },
    headers: key(),
  });
  expect(bad.status).toBe(400);
  expect(bad.body.error.details.fields.map((f: { field: string }) => f.field).sort()).toEqual([
    'amountCents',
    'currency',
    'payer.name',
    'payer.taxId',
  ]);
});

it('a charge paid in the sandbox reads PAID here and on the seller API (one lifecycle)', async () => {
  const { client, merchantId } = await owner();
  const created = await client.call('POST', '/charges', { body: { merchantId, amountCents: 10_000 }, headers: key() });
  expect((await stack.pay(created.body.id)).status).toBe(200);
  const paid = await waitFor(async () => {
    const read = await client.call('GET', `/charges/${created.body.id}`);
    return read.body.status === 'PAID' ? read.body : undefined;
  }, 'charge PAID');
  expect(paid.id).toBe(created.body.id);
  const credential = await client.call('POST', '/dashboard/credentials', {
    body: { merchantId, name: 'reader', scopes: ['charges:read'] },
  });
  const seller = await stack.api('GET', `/sellers/pix/${created.body.id}`, {
    creds: { merchantId, clientId: credential.body.clientId, clientSecret: credential.body.clientSecret },
  });
  expect(seller.status).toBe(200);
  expect(seller.body.status).toBe('PAID');
  expect(seller.body.payer).toMatchObject({ name: expect.any(String) });
  const cancel = await client.call('POST', `/charges/${created.body.id}/cancel`, { body: {} });
  expect(cancel.status).toBe(409);
  expect(cancel.body.error.code).toBe('CHARGE_NOT_CANCELLABLE');
});

it('cancels a PENDING charge: CANCELED here, CANCELLED on the seller API; cancelling again answers it again', async () => {
  const { client, merchantId } = await owner();
  const created = await client.call('POST', '/charges', { body: { merchantId, amountCents: 1_000 }, headers: key() });
  const cancel = await client.call('POST', `/charges/${created.body.id}/cancel`, {
    body: { reason: 'pedido desistido' },
  });
  expect(cancel.status).toBe(200);
  expect(cancel.body.status).toBe('CANCELED');
  expect((await client.call('POST', `/charges/${created.body.id}/cancel`, { body: {} })).body.status).toBe('CANCELED');
  const credential = await client.call('POST', '/dashboard/credentials', {
    body: { merchantId, name: 'reader', scopes: ['charges:read'] },
  });
  const seller = await stack.api('GET', `/sellers/pix/${created.body.id}`, {
    creds: { merchantId, clientId: credential.body.clientId, clientSecret: credential.body.clientSecret },
  });
  expect(seller.body.status).toBe('CANCELLED');
});

it('lists newest first with filters and the spec’s pagination object', async () => {
  const { client, merchantId } = await owner();
  const ids: string[] = [];
  for (let i = 0; i < 3; i++)
    ids.push(
      (
        await client.call('POST', '/charges', {
          body: { merchantId, amountCents: 100 + i, externalRef: `ref-${i}` },
          headers: key(),
        })
      ).body.id,
    );
  await client.call('POST', `/charges/${ids[0]}/cancel`, { body: {} });
  const page = await client.call('GET', `/charges?merchantId=${merchantId}&limit=2`);
  expect(page.status).toBe(200);
  expect(page.body.pagination).toEqual({ total: 3, limit: 2, offset: 0, hasMore: true });
  expect(page.body.data.map((c: { id: string }) => c.id)).toEqual([ids[2], ids[1]]);
  const rest = await client.call('GET', `/charges?limit=2&offset=2`); // default merchant: the one owned
  expect(rest.body.pagination).toEqual({ total: 3, limit: 2, offset: 2, hasMore: false });
  expect((await client.call('GET', '/charges?status=CANCELED')).body.data.map((c: { id: string }) => c.id)).toEqual([
    ids[0],
  ]);
  expect((await client.call('GET', '/charges?externalRef=ref-1')).body.data.map((c: { id: string }) => c.id)).toEqual([
    ids[1],
  ]);
  expect(
    (
      await client.call(
        'GET',
        `/charges?createdFrom=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
      )
    ).body.pagination.total,
  ).toBe(0);
  expect((await client.call('GET', '/charges?limit=0')).status).toBe(400);
  expect((await client.call('GET', '/charges?status=CANCELLED')).status).toBe(400);
});

it('roles: a viewer reads but cannot create or cancel; a stranger gets 404 for the charge and the merchant', async () => {
  const { client, merchantId } = await owner();
  const created = await client.call('POST', '/charges', { body: { merchantId, amountCents: 700 }, headers: key() });
  const { client: viewer, userId: viewerId } = await signedInUser(stack, { emailPrefix: 'viewer' });
  await stack.sequelize.query(`INSERT INTO merchant_members (user_id, merchant_id, role) VALUES (:u, :m, 'viewer')`, {
    replacements: { u: viewerId, m: merchantId },
  });
  expect((await viewer.call('GET', `/charges/${created.body.id}`)).status).toBe(200);
  expect((await viewer.call('GET', '/charges')).body.pagination.total).toBe(1);
  const create = await viewer.call('POST', '/charges', { body: { merchantId, amountCents: 100 }, headers: key() });
  expect(create.status).toBe(403);
  expect(create.body.error.code).toBe('INSUFFICIENT_ROLE');
  expect((await viewer.call('POST', `/charges/${created.body.id}/cancel`, { body: {} })).status).toBe(403);

  const stranger = await owner();
  const read = await stranger.client.call('GET', `/charges/${created.body.id}`);
  expect(read.status).toBe(404);
  expect(read.body.error.code).toBe('CHARGE_NOT_FOUND');
  expect((await stranger.client.call('POST', `/charges/${created.body.id}/cancel`, { body: {} })).status).toBe(404);
  expect((await stranger.client.call('GET', `/charges?merchantId=${merchantId}`)).status).toBe(404);
  expect(
    (await stranger.client.call('POST', '/charges', { body: { merchantId, amountCents: 100 }, headers: key() })).status,
  ).toBe(404);
  expect((await client.call('GET', `/charges/${created.body.id}`)).body.status).toBe('PENDING');
});
