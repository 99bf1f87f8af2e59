/**
 * Tenant isolation of the application API, generated from the routes the API really mounts:
 * user B (signed in, owner of merchant B) calls every bearer route with user A's ids: in the path
 * (APP_ID_RULES), as `merchantId` in the query or body wherever the OpenAPI document says the
 * route takes one. A route given one of A's ids must answer 404 in the error envelope; no answer
 * may carry any of A's ids or A's e-mail; A's data reads the same afterwards.
 *
 * A route added later is covered without editing this file, unless it has a new kind of path
 * parameter (then APP_ID_RULES needs a rule, and the first test says so) or takes merchantId in a
 * body (then PROBE_BODIES needs a valid body for it).
 */
import crypto from 'node:crypto';
import { buildOpenApiDocument } from '../../api/openapi/document';
import type { AppClient } from '../support/appClient';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { createCourseContent, createPublishedCourseWithPrice } from '../support/courses';
import { APPLICATION_ROUTES, listMountedRoutes, type MountedRoute } from '../support/mountedRoutes';
import { signedInMerchant } from '../support/signedIn';
import { insertSubscription } from '../support/subscriptions';

jest.setTimeout(120_000);

/** Application routes that take no bearer token: sign-up, sign-in and its second step. */
const PUBLIC = /^\/auth\/(register|login|login\/second-factor(\/email)?|csrf|refresh|logout)$/;

interface Fixtures {
  userId: string;
  email: string;
  merchantId: string;
  clientId: string;
  chargeId: string;
  boletoId: string;
  batchId: string;
  batchItemId: string;
  sessionId: string;
  courseId: string;
  priceId: string;
  moduleId: string;
  lessonId: string;
  enrolmentId: string;
  reconciliationId: string;
  settlementId: string;
  infractionId: string;
  subscriptionId: string;
}

/** Which of A's ids fills a path parameter, by `<segment before it>/{<name>}`. */
const APP_ID_RULES: Record<string, keyof Fixtures> = {
  'credentials/{clientId}': 'clientId',
  'charges/{id}': 'chargeId',
  'boletos/{id}': 'boletoId',
  'batches/{batchId}': 'batchId',
  '{batchId}/{id}': 'batchItemId',
  'sessions/{id}': 'sessionId',
  'courses/{id}': 'courseId',
  'prices/{priceId}': 'priceId',
  'modules/{moduleId}': 'moduleId',
  'lessons/{lessonId}': 'lessonId',
  'enrolments/{id}': 'enrolmentId',
  'reconciliations/{id}': 'reconciliationId',
  'settlements/{id}': 'settlementId',
  'infractions/{id}': 'infractionId',
  'subscriptions/{id}': 'subscriptionId',
};

/** Valid bodies (past validation) for routes that take merchantId in the body; A's id is put in. */
const PROBE_BODIES: Record<string, Record<string, unknown>> = {
  'POST /dashboard/credentials': { name: 'isolation probe', scopes: ['charges:read'] },
  'POST /charges': { amountCents: 100 },
  'PATCH /dashboard/merchant/branding': { color: '#112233', logoUrl: 'https://loja.example.com/logo.png' },
  'POST /checkout/sessions': { amountCents: 100 },
  'POST /courses': { title: 'isolation probe', accessType: 'LIFETIME' },
  'POST /reconciliations': {
    from: new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10),
    to: new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10),
  },
  'POST /settlements': { amountCents: 100 },
  'PUT /settlements/schedule': { frequency: 'D0', minimumAmountCents: 0 },
  'POST /med/infractions/sync': {},
  // A's subscription price (filled in beforeAll): B is refused on the merchant before the price is read.
  'POST /subscriptions': { priceId: '', journey: 'JOURNEY_3', payer: { name: 'Bia Souza', document: '52998224725' } },
  // Well-formed but never opened: B's request must be refused as not found before the material is read.
  'POST /dashboard/connection': {
    pspKind: 'efi',
    apiBaseUrl: 'https://psp.example.com/v2',
    tokenUrl: 'https://psp.example.com/oauth/token',
    clientId: 'probe-client',
    clientSecret: 'probe-secret',
    pixKey: 'probe@example.com',
    certPem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
    keyPem: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n',
  },
  'POST /dashboard/connection/rotate': { clientSecret: 'probe-secret' },
  'POST /dashboard/connection/revoke': {},
  'POST /dashboard/connection/test': {},
  'POST /dashboard/connection/webhook': {},
  'POST /boletos': {
    items: [
      {
        amountCents: 100,
        dueDate: new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10),
        payer: { name: 'Bia Souza', taxId: '52998224725' },
      },
    ],
  },
};

let stack: IntegrationStack;
let routes: MountedRoute[];
let a: Fixtures;
let userB: AppClient;
const doc = buildOpenApiDocument();

type Operation = {
  parameters?: { name: string; in: string }[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
};

function operation(route: MountedRoute): Operation | undefined {
  return (doc.paths?.[route.path] as Record<string, Operation> | undefined)?.[route.method.toLowerCase()];
}

/** True when the documented body schema (resolved through $ref) has a merchantId property. */
function bodyTakesMerchantId(op: Operation | undefined): boolean {
  let schema = op?.requestBody?.content?.['application/json']?.schema as
    { $ref?: string; properties?: Record<string, unknown> } | undefined;
  if (schema?.$ref) schema = doc.components?.schemas?.[schema.$ref.split('/').pop()!] as typeof schema;
  return Boolean(schema?.properties && 'merchantId' in schema.properties);
}

const signUp = (name: string) => signedInMerchant(stack, { emailPrefix: name, name: `Loja ${name}` });

beforeAll(async () => {
  // A stack of its own, not the worker's shared one (test/support/sharedStack.ts): it walks the Express app's mounted routes.
  stack = await startIntegrationStack();
  routes = listMountedRoutes(stack.app).filter((r) => APPLICATION_ROUTES.test(r.path) && !PUBLIC.test(r.path));
  const userA = await signUp('a');
  const credential = await userA.client.call('POST', '/dashboard/credentials', {
    body: { merchantId: userA.merchantId, name: 'A key', scopes: ['charges:read'] },
  });
  expect(credential.status).toBe(201);
  const charge = await userA.client.call('POST', '/charges', {
    body: { merchantId: userA.merchantId, amountCents: 1_000 },
    headers: { 'x-idempotency-key': `iso-${Date.now()}` },
  });
  expect(charge.status).toBe(201);
  const payer = { name: 'Bia Souza', taxId: '52998224725' };
  const dueDate = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
  const boleto = await userA.client.call('POST', '/boletos', {
    body: { merchantId: userA.merchantId, items: [{ amountCents: 900, dueDate, payer }] },
    headers: { 'x-idempotency-key': `iso-b-${Date.now()}` },
  });
  expect(boleto.status).toBe(201);
  const batch = await userA.client.call('POST', '/boletos', {
    body: {
      merchantId: userA.merchantId,
      items: [
        { amountCents: 901, dueDate, payer },
        { amountCents: 902, dueDate, payer },
      ],
    },
    headers: { 'x-idempotency-key': `iso-bb-${Date.now()}` },
  });
  expect(batch.status).toBe(202);
  const batchRead = await userA.client.call('GET', `/boletos/batches/${batch.body.batchId}`);
  const session = await userA.client.call('POST', '/checkout/sessions', {
    body: { merchantId: userA.merchantId, amountCents: 1_500 },
    headers: { 'x-idempotency-key': `iso-s-${Date.now()}` },
  });
  expect(session.status).toBe(201);
  const { course, price } = await createPublishedCourseWithPrice(userA.client, userA.merchantId, {
    amountCents: 4_990,
  });
  const [content] = await createCourseContent(userA.client, course.id, [
    { title: 'Módulo 1', lessons: [{ title: 'Aula 1' }] },
  ]);
  // An enrolment of A's course, as the paid-checkout hook writes it, on A's session checkout
  // (paying is not what this test is about; test/integration/enrolments.test.ts pays for real).
  const enrolmentId = crypto.randomUUID();
  await stack.sequelize.query(
    `INSERT INTO enrolments (id, merchant_id, course_id, checkout_id, student_name, student_document)
     SELECT :id, :m, :course, id, 'Bia Souza', '52998224725' FROM checkouts WHERE merchant_id = :m ORDER BY created_at LIMIT 1`,
    { replacements: { id: enrolmentId, m: userA.merchantId, course: course.id } },
  );
  // A finished reconciliation of A's, as the Reconciliation workflow leaves it (reconciliations.test.ts runs them for real).
  const reconciliationId = crypto.randomUUID();
  await stack.sequelize.query(
    `INSERT INTO reconciliations (id, merchant_id, from_date, to_date, status, completed_at) VALUES (:id, :m, CURRENT_DATE, CURRENT_DATE, 'COMPLETED', now())`,
    { replacements: { id: reconciliationId, m: userA.merchantId } },
  );
  // A failed settlement of A's and the withdrawal it rode on, as the reservation writes them
  // (settlements.test.ts moves real money); and A's schedule config.
  const settlementId = crypto.randomUUID();
  await stack.sequelize.query(
    `INSERT INTO withdrawals (id, merchant_id, amount_cents, fee_cents, total_debited_cents, status, failure_code, failure_reason, processed_at)
       VALUES (:id, :m, 100, 0, 100, 'FAILED', 'NOT_PROCESSED', 'fixture', now());
     INSERT INTO settlements (id, merchant_id, withdrawal_id, trigger) VALUES (:id, :m, :id, 'ON_DEMAND');
     INSERT INTO settlement_schedules (merchant_id, frequency, minimum_amount_cents) VALUES (:m, 'D1', 0)`,
    { replacements: { id: settlementId, m: userA.merchantId } },
  );
  // An open Pix infraction (MED) against A's charge, as the sync stores it (med.test.ts opens them at the sandbox for real).
  const infractionId = crypto.randomUUID();
  await stack.sequelize.query(
    `INSERT INTO med_infractions (id, provider_infraction_id, merchant_id, charge_id, end_to_end_id, disputed_cents, reason, opened_at, deadline_at)
     VALUES (:id, :pid, :m, :c, 'E99999999202611241200abcdefghijk', 500, 'FRAUD', now(), now() + interval '7 days')`,
    { replacements: { id: infractionId, pid: `sbx_inf_${infractionId}`, m: userA.merchantId, c: charge.body.id } },
  );
  // A's subscription, as its workflow records it (subscriptionRoutes.test.ts covers the routes themselves).
  const subscription = await insertSubscription(stack.sequelize, userA.merchantId);
  PROBE_BODIES['POST /subscriptions'].priceId = subscription.priceId;
  a = {
    subscriptionId: subscription.id,
    settlementId,
    userId: userA.userId,
    email: userA.email,
    merchantId: userA.merchantId,
    clientId: credential.body.clientId,
    chargeId: charge.body.id,
    boletoId: boleto.body.boletos[0].id,
    batchId: batch.body.batchId,
    batchItemId: batchRead.body.items[0].id,
    sessionId: session.body.id,
    courseId: course.id,
    priceId: price.id,
    moduleId: content.moduleId,
    lessonId: content.lessonIds[0],
    enrolmentId,
    reconciliationId,
    infractionId,
  };
  userB = (await signUp('b')).client;
});

afterAll(async () => {
  await stack?.stop();
});

function fill(route: MountedRoute): { path: string; unresolved: string[]; usesAnId: boolean } {
  const unresolved: string[] = [];
  let usesAnId = false;
  // The segment before a parameter is looked behind, not consumed: `{batchId}/{id}` resolves too.
  let path = route.path.replace(/(?<=([^/]+)\/)\{(\w+)\}/g, (whole, segment: string, param: string) => {
    const rule = APP_ID_RULES[`${segment}/{${param}}`];
    if (!rule) {
      unresolved.push(`${segment}/{${param}}`);
      return whole;
    }
    usesAnId = true;
    return a[rule];
  });
  if (operation(route)?.parameters?.some((p) => p.in === 'query' && p.name === 'merchantId')) {
    path += `?merchantId=${a.merchantId}`;
    usesAnId = true;
  }
  return { path, unresolved, usesAnId };
}

it('covers every bearer route of the application API, with a rule for every path parameter and a body wherever merchantId is one', () => {
  expect(routes.length).toBeGreaterThan(15);
  const problems = routes.flatMap((r) => [
    ...fill(r).unresolved.map((p) => `${r.method} ${r.path}: no APP_ID_RULES entry for ${p}`),
    ...(bodyTakesMerchantId(operation(r)) && !PROBE_BODIES[`${r.method} ${r.path}`]
      ? [`${r.method} ${r.path}: takes merchantId in its body; add a PROBE_BODIES entry`]
      : []),
  ]);
  expect(problems).toEqual([]);
});

it("answers user B 404 for every route given user A's ids, and no answer carries A's ids or e-mail", async () => {
  const before = (
    await stack.sequelize.query(
      `SELECT client_id, active FROM api_credentials WHERE merchant_id = :m ORDER BY client_id`,
      { replacements: { m: a.merchantId } },
    )
  )[0];
  const catalogue = `SELECT c.status, c.title, c.updated_at, p.amount_cents, p.active, p.updated_at AS pu, m.title AS mt, m.updated_at AS mu, l.title AS lt, l.updated_at AS lu
    FROM courses c JOIN course_prices p ON p.course_id = c.id JOIN course_modules m ON m.course_id = c.id JOIN course_lessons l ON l.module_id = m.id WHERE c.merchant_id = :m ORDER BY c.id`;
  const coursesBefore = (await stack.sequelize.query(catalogue, { replacements: { m: a.merchantId } }))[0];
  const failures: string[] = [];
  let probedWithIds = 0;
  for (const route of routes) {
    const { path, unresolved, usesAnId } = fill(route);
    if (unresolved.length) continue; // reported above
    const probe = PROBE_BODIES[`${route.method} ${route.path}`];
    const body = probe
      ? { ...probe, merchantId: a.merchantId }
      : route.method === 'GET' || route.method === 'DELETE'
        ? undefined
        : {};
    const takesId = usesAnId || Boolean(probe);
    // With an idempotency key, so routes that need one reach their ownership check.
    const res = await userB.call(route.method, path, {
      body,
      headers: { 'x-idempotency-key': `probe-${crypto.randomUUID()}` },
    });
    const text = JSON.stringify(res.body);
    const leaked = [a.userId, a.email, a.merchantId, a.clientId].filter((v) => text.includes(v) && !path.includes(v));
    if (takesId) {
      probedWithIds++;
      const isEnvelope = res.body && Object.keys(res.body).join() === 'error';
      if (res.status !== 404 || !isEnvelope)
        failures.push(`${route.method} ${path} → ${res.status} ${text.slice(0, 160)}`);
    }
    // An answer may echo the id B sent (e.g. in a message), but nothing else of A's.
    const echoed = new Set([...path.split(/[/?=&]/), ...(probe ? [a.merchantId] : [])]);
    const realLeaks = leaked.filter((v) => !echoed.has(v));
    if (realLeaks.length) failures.push(`${route.method} ${path} leaks ${realLeaks.join(', ')}`);
  }
  expect(failures).toEqual([]);
  expect(probedWithIds).toBeGreaterThanOrEqual(3);
  const after = (
    await stack.sequelize.query(
      `SELECT client_id, active FROM api_credentials WHERE merchant_id = :m ORDER BY client_id`,
      { replacements: { m: a.merchantId } },
    )
  )[0];
  expect(after).toEqual(before);
  // B's writes to A's course, price, module and lesson changed nothing, and B created no course for A.
  expect((await stack.sequelize.query(catalogue, { replacements: { m: a.merchantId } }))[0]).toEqual(coursesBefore);
  expect(coursesBefore).toHaveLength(1);
  // B's settlement requests and schedule writes for A moved no money and changed no schedule.
  const [money] = await stack.sequelize.query(
    `SELECT (SELECT count(*) FROM withdrawals WHERE merchant_id = :m) AS w, (SELECT count(*) FROM settlements WHERE merchant_id = :m) AS s`,
    { replacements: { m: a.merchantId } },
  );
  expect(money).toEqual([{ w: '1', s: '1' }]);
  const [schedule] = await stack.sequelize.query(
    `SELECT frequency, minimum_amount_cents FROM settlement_schedules WHERE merchant_id = :m`,
    { replacements: { m: a.merchantId } },
  );
  expect(schedule).toEqual([{ frequency: 'D1', minimum_amount_cents: '0' }]);
});
