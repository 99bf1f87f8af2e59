/**
 * Every "create once" of the stores works under the runtime role the API, the worker and the CLI
 * log in as (scripts/lib/databaseRoles.ts: rows only; no TEMPORARY on the database). Sequelize's
 * findOrCreate wraps its INSERT in a temporary PL/pgSQL function (pg_temp), which that role may
 * not create: under `npm start` (and a production that follows docs/operations.md's roles)
 * `gateway user add-to-merchant` failed with "permission denied to create temporary tables in
 * database", and so would a webhook endpoint's create, a refund's row and a user's second factor.
 * Found by the chaos run (its load adds a user to a merchant with the built CLI); the test stacks
 * log in as the admin, which hid it.
 */
import crypto from 'node:crypto';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createMerchantWithCredential } from '../../db/identity/merchantAdmin';
import { factorOf } from '../../db/identity/secondFactorStore';
import { addUserToMerchant, createUser } from '../../db/identity/userAdmin';
import { createEndpointOnce } from '../../db/events/webhookEndpointStore';
import { createRefundOnce } from '../../db/refunds/refundStore';
import { createSequelize } from '../../db/sequelize';
import { DATABASE_ROLES, roleUrl } from '../../scripts/lib/databaseRoles';
import { testEnv } from '../support/env';

const env = testEnv();
const run = new URL(env.databaseUrl).pathname.slice(1);
let sequelize: Sequelize;
let merchantId: string;
const key = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';

beforeAll(async () => {
  // The run's own database, logged in as the runtime role: the models bind to this login.
  sequelize = createSequelize(roleUrl(env.databaseUrl, DATABASE_ROLES.runtime, run), { poolMax: 2 });
  ({ merchantId } = await createMerchantWithCredential(sequelize, { name: 'Loja do Papel' }, key));
});

afterAll(async () => {
  await sequelize?.close();
});

it('runs as the runtime role, which may not create temporary objects', async () => {
  const [row] = await sequelize.query<{ who: string; temp: boolean }>(
    `SELECT current_user AS who, has_database_privilege(current_database(), 'TEMPORARY') AS temp`,
    { type: QueryTypes.SELECT },
  );
  expect(row).toEqual({ who: DATABASE_ROLES.runtime, temp: false });
});

it('adds a user to a merchant, twice (the second changes the role)', async () => {
  const email = `papel.${crypto.randomUUID()}@example.com`;
  await createUser({ email, name: 'Papel', password: crypto.randomBytes(12).toString('hex') });
  expect(await addUserToMerchant({ email, merchantId, role: 'finance' })).toMatchObject({ changed: 'added' });
  expect(await addUserToMerchant({ email, merchantId, role: 'owner' })).toMatchObject({ changed: 'updated' });
});

it("makes a user's second factor once", async () => {
  const { id } = await createUser({
    email: `fator.${crypto.randomUUID()}@example.com`,
    name: 'Fator',
    password: crypto.randomBytes(12).toString('hex'),
  });
  const first = await factorOf(id);
  const again = await factorOf(id);
  expect(again.userId).toBe(first.userId);
});

it('creates a webhook endpoint once (a resumed create answers the stored one)', async () => {
  const attributes = {
    id: crypto.randomUUID(),
    merchantId,
    url: 'https://example.com/hooks',
    events: ['charge.paid'],
    secretCiphertext: 'x',
  };
  const first = await createEndpointOnce(attributes);
  const again = await createEndpointOnce({ ...attributes, url: 'https://example.com/other' });
  expect(again.id).toBe(first.id);
  expect(again.url).toBe('https://example.com/hooks');
});

it("stores a refund's row once", async () => {
  const chargeId = crypto.randomUUID();
  await sequelize.query(
    `INSERT INTO charges (id, merchant_id, amount_cents, status, expires_at) VALUES (:chargeId, :merchantId, 1000, 'PAID', now())`,
    { replacements: { chargeId, merchantId } },
  );
  const attributes = {
    id: crypto.randomUUID(),
    chargeId,
    merchantId,
    amountCents: 500,
    reason: 'teste',
    status: 'PROCESSING' as const,
    shares: { ownerCents: 500, feeCents: 0, splits: [] },
  };
  expect((await createRefundOnce(attributes)).created).toBe(true);
  expect((await createRefundOnce(attributes)).created).toBe(false);
});
