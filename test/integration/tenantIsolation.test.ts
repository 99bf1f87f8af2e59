/**
 * Tenant isolation, generated from the routes the API really mounts (test/support/mountedRoutes.ts):
 * merchant B, with its own valid credentials (and request signatures), calls every
 * merchant-scoped route with merchant A's ids and must get 404 in the error envelope with none of
 * A's data; B's list routes show none of A's ids; A's resources read the same afterwards.
 *
 * A route added later is covered without editing this file. Its path parameters are filled from
 * ID_RULES (test/support/merchantResources.ts) by the segment before the parameter and the
 * parameter's name, so a route whose parameter has no rule fails the test instead of being skipped.
 */
import crypto from 'node:crypto';
import { signedRequestHeaders } from '../../core/signatures/requestSignature';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';
import { assertLedgerInvariant } from '../support/ledger';
import { APPLICATION_ROUTES, listMountedRoutes, type MountedRoute } from '../support/mountedRoutes';
import { createOwnedResources, ID_RULES, type OwnedResources } from '../support/merchantResources';
import { fundByPaidCharge, payoutMerchant, signedCall } from '../support/payouts';
import { startReceiver, type Receiver } from '../support/receiver';

jest.setTimeout(120_000);

/**
 * Routes that belong to no merchant: health, metrics (operators, METRICS_TOKEN; platform-wide figures, checked for ids in test/integration/metrics.test.ts), documentation, the provider's HMAC-signed callback,
 * the local upload store (signed URLs), the hosted checkout page (whoever has its URL is the
 * buyer; test/integration/checkoutPage.test.ts checks it shows nothing else), the hosted subscription page (the same,
 * test/integration/subscriptionRoutes.test.ts). The application API (signed-in people, bearer tokens)
 * has its own matrix: test/integration/tenantIsolationApp.test.ts.
 */
const PUBLIC_ROUTES = [
  /^\/(docs|healthz|ready|openapi\.json|metrics|metrics\/perf-db)$/,
  /^\/webhooks\/pix-gateway(\/|$)/,
  /^\/webhooks\/pix-api\//,
  /^\/uploads\//,
  /^\/c\//,
  /^\/subscribe\//,
];

type Fixtures = OwnedResources;

/** A body that passes validation, so the answer shows the ownership check, not a 400. */
function probeBody(route: MountedRoute): unknown {
  if (route.method === 'PATCH') return { description: 'tenant isolation probe' };
  if (route.path.endsWith('/cancel')) return { reason: 'tenant isolation probe' };
  return undefined;
}

let stack: IntegrationStack;
let receiver: Receiver;
let merchantA: MerchantCredentials;
let merchantB: MerchantCredentials;
let fixtures: Fixtures;
let routes: MountedRoute[];

function merchantScoped(route: MountedRoute): boolean {
  return !PUBLIC_ROUTES.some((re) => re.test(route.path)) && !APPLICATION_ROUTES.test(route.path);
}

function fillPath(path: string): { path: string; unresolved: string[] } {
  const unresolved: string[] = [];
  const filled = path.replace(/([^/]+)\/\{(\w+)\}/g, (whole, segment: string, param: string) => {
    const rule = ID_RULES[`${segment}/{${param}}`];
    if (!rule) {
      unresolved.push(`${segment}/{${param}}`);
      return whole;
    }
    return `${segment}/${fixtures[rule]}`;
  });
  return { path: filled, unresolved };
}

let lastTimestamp = 0;

/** Merchant B's call, authenticated and signed the way a real client does. */
async function callAs(creds: MerchantCredentials, method: string, path: string, body: unknown) {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const ts = (lastTimestamp = Math.max(Date.now(), lastTimestamp + 1));
  const headers: Record<string, string> = signedRequestHeaders({
    ...creds,
    method,
    path,
    rawBody: raw,
    timestampMs: ts,
  });
  headers['idempotency-key'] = `tenant-${crypto.randomUUID()}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${stack.apiUrl}${path}`, { method, headers, body: body === undefined ? undefined : raw });
  const text = await res.text();
  return { status: res.status, text, body: text ? (JSON.parse(text) as unknown) : null };
}

/** What merchant A sees of each of its resources (to prove B's calls changed nothing). */
async function snapshotOfA(): Promise<Record<string, unknown>> {
  const read = async (path: string, signed = false) =>
    signed
      ? (await signedCall(stack, merchantA, 'GET', path)).body
      : (await stack.api('GET', path, { creds: merchantA })).body;
  return {
    charge: await read(`/sellers/pix/${fixtures.chargeId}`),
    withdrawal: await read(`/sellers/saques/${fixtures.withdrawalId}`),
    webhook: await read(`/sellers/webhooks/${fixtures.webhookId}`),
    delivery: await read(`/sellers/webhook-deliveries/${fixtures.deliveryId}`),
    batch: await read(`/v1/payouts/batches/${fixtures.batchId}`, true),
    checkout: await read(`/v1/checkouts/${fixtures.checkoutId}`),
  };
}

beforeAll(async () => {
  stack = await startIntegrationStack({ webhookDispatcher: true });
  receiver = await startReceiver();
  routes = listMountedRoutes(stack.app);
  // Both may pay out (or B would get 403 PAYOUTS_NOT_ENABLED, which proves nothing about isolation).
  merchantA = await stack.createMerchant({
    name: 'Loja A',
    payoutsEnabled: true,
    document: '11144477735',
    pixKeyType: 'EMAIL',
    pixKey: `financeiro+${crypto.randomUUID().slice(0, 8)}@loja-a.com.br`,
  });
  merchantB = await payoutMerchant(stack, { name: 'Loja B' });

  fixtures = await createOwnedResources(stack, merchantA, receiver.url);
  // B has money and data of its own too, so "not found" cannot come from B having nothing.
  await fundByPaidCharge(stack, merchantB, 10_000);
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

it('lists the merchant-scoped routes it probes, and has an id rule for every path parameter', () => {
  const scoped = routes.filter(merchantScoped);
  expect(scoped.length).toBeGreaterThan(20);
  const missing = scoped.flatMap((r) =>
    fillPath(r.path).unresolved.map((p) => `${r.method} ${r.path}: no rule for ${p}`),
  );
  // A new route with a new kind of id: add a rule to ID_RULES naming which of A's ids fills it.
  expect(missing).toEqual([]);
});

it("answers 404 with no data to merchant B for every route given merchant A's ids, and A's resources are unchanged", async () => {
  const before = await snapshotOfA();
  const withIds = routes.filter((r) => merchantScoped(r) && r.path.includes('{'));
  const aIds = Object.values(fixtures);
  const failures: string[] = [];
  for (const route of withIds) {
    const { path, unresolved } = fillPath(route.path);
    if (unresolved.length > 0) continue; // reported by the test above
    const res = await callAs(merchantB, route.method, path, probeBody(route));
    const body = res.body as { error?: { code?: string }; data?: unknown; success?: boolean } | null;
    // Partner checkout and subscription routes answer in the P0 envelope {data: null, success: false, error}; all others in {error}.
    const p0 = /^\/v1\/(checkouts|subscriptions)(\/|$)/.test(route.path);
    const envelopeOk = p0
      ? body !== null &&
        Object.keys(body).sort().join() === 'data,error,success' &&
        body.data === null &&
        body.success === false
      : body !== null && Object.keys(body).join() === 'error';
    const ok = res.status === 404 && envelopeOk && typeof body?.error?.code === 'string';
    // The answer may echo the id B asked for, but nothing else of A's: no other id, no merchant id.
    const leaked = [...aIds.filter((id) => !path.includes(id)), merchantA.merchantId].filter((v) =>
      res.text.includes(v),
    );
    if (!ok || leaked.length > 0)
      failures.push(
        `${route.method} ${route.path} → ${res.status} ${res.text.slice(0, 200)}${leaked.length ? ` (leaks ${leaked.join(', ')})` : ''}`,
      );
  }
  expect(failures).toEqual([]);
  expect(withIds.length).toBeGreaterThanOrEqual(Object.keys(ID_RULES).length);
  expect(await snapshotOfA()).toEqual(before);
  await assertLedgerInvariant(stack.sequelize);
});

it("shows none of merchant A's ids in merchant B's list routes", async () => {
  const lists = routes.filter((r) => merchantScoped(r) && r.method === 'GET' && !r.path.includes('{'));
  expect(lists.length).toBeGreaterThan(0);
  const failures: string[] = [];
  for (const route of lists) {
    const res = await callAs(merchantB, 'GET', route.path, undefined);
    const leaked = [...Object.values(fixtures), merchantA.merchantId].filter((v) => res.text.includes(v));
    if (res.status !== 200 || leaked.length > 0)
      failures.push(
        `GET ${route.path} → ${res.status} ${leaked.length ? `leaks ${leaked.join(', ')}` : res.text.slice(0, 200)}`,
      );
  }
  expect(failures).toEqual([]);
});
