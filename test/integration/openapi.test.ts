/**
 * The OpenAPI document against the real app: every route mounted by createApp is documented
 * (and nothing documented is missing from the app), /openapi.json and /docs are served without
 * credentials and without any outside resource, and real answers parse with the documented
 * response schemas.
 */
import crypto from 'node:crypto';
import { createApp } from '../../api/app';
import { buildOpenApiDocument, type OpenApiDocument } from '../../api/openapi/document';
import { ErrorEnvelope } from '../../api/openapi/registry';
import { healthzResponse, readyResponse } from '../../api/health/openapi';
import { sellerPixCharge } from '../../api/sellers/pix/responseSchema';
import { webhookEndpoint } from '../../api/sellers/webhooks/openapi';
import { createLogger } from '../../core/logger';
import type { MerchantCredentials } from '../../db/merchantAdmin';
import { listMountedRoutes, normaliseDocumentPath } from '../support/mountedRoutes';
import { startIntegrationStack, type IntegrationStack } from '../support/integrationStack';

jest.setTimeout(60_000);

let stack: IntegrationStack;
let seller: MerchantCredentials;
/**
 * Built in a fresh module registry, where only api/openapi/document.ts's own imports register
 * anything: a route module documented but imported only by its router (so missing from a
 * standalone document) is then reported as undocumented.
 */
function standaloneDocument(): OpenApiDocument {
  let built: OpenApiDocument | undefined;
  jest.isolateModules(() => {
    // A require inside isolateModules loads a fresh copy of the module graph; an import cannot.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    built = (require('../../api/openapi/document') as { buildOpenApiDocument: typeof buildOpenApiDocument }).buildOpenApiDocument();
  });
  return built!;
}
const doc = standaloneDocument();
const DOC_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'trace'];

beforeAll(async () => {
  stack = await startIntegrationStack();
  seller = await stack.createMerchant({ name: 'Loja OpenAPI' });
});

afterAll(async () => {
  await stack?.stop();
});

function documentedRoutes(): Set<string> {
  return new Set(
    Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
      DOC_METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((m) => `${m.toUpperCase()} ${normaliseDocumentPath(path)}`),
    ),
  );
}

/** The app as the server builds it; the route table does not depend on the dependency values. */
function appRoutes(): Set<string> {
  const app = createApp({
    sequelize: stack.sequelize,
    temporal: stack.temporal,
    taskQueue: stack.taskQueue,
    logger: createLogger('openapi-test'),
    credentialsEncryptionKey: stack.encryptionKey,
    providerCallbackSecret: stack.callbackSecret,
    defaultFee: { bps: 100, fixedCents: 0 },
    defaultChargeTtlSeconds: 3600,
    idempotencyTtlHours: 24,
  });
  return new Set(listMountedRoutes(app).map((r) => `${r.method} ${r.path}`));
}

describe('route coverage', () => {
  it('documents every route mounted by createApp (see "How to document a route" in the README)', () => {
    const documented = documentedRoutes();
    const mounted = appRoutes();
    // Sanity: the walker really sees the nested seller routers under both prefixes.
    expect(mounted).toContain('GET /sellers/pix/{id}');
    expect(mounted).toContain('GET /rifeiro/pix/{id}');
    const undocumented = [...mounted].filter((r) => !documented.has(r));
    expect(undocumented).toEqual([]);
  });

  it('documents no route that the app does not mount', () => {
    const mounted = appRoutes();
    const stale = [...documentedRoutes()].filter((r) => !mounted.has(r));
    expect(stale).toEqual([]);
  });
});

describe('GET /openapi.json and /docs', () => {
  it('serves the generated document without credentials', async () => {
    const res = await stack.api('GET', '/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  it('serves a self-contained Swagger UI page: every script and style from this server', async () => {
    const page = await fetch(`${stack.apiUrl}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const assets = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1]).filter((u) => u !== '/openapi.json');
    expect(assets).toEqual(expect.arrayContaining(['/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css', '/docs/assets/init.js']));
    for (const asset of assets) {
      const res = await fetch(`${stack.apiUrl}${asset}`);
      expect({ asset, status: res.status }).toEqual({ asset, status: 200 });
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0);
    }
    const init = await (await fetch(`${stack.apiUrl}/docs/assets/init.js`)).text();
    expect(init).toContain("url: '/openapi.json'");
  });

  it('serves no other file of the swagger-ui-dist package', async () => {
    for (const name of ['index.html', 'swagger-initializer.js', '..%2Fpackage.json']) {
      const res = await stack.api('GET', `/docs/assets/${name}`);
      expect({ name, status: res.status }).toEqual({ name, status: 404 });
    }
  });
});

describe('real answers match the documented schemas', () => {
  it('health', async () => {
    expect(healthzResponse.safeParse((await stack.api('GET', '/healthz')).body).error).toBeUndefined();
    expect(readyResponse.safeParse((await stack.api('GET', '/ready')).body).error).toBeUndefined();
  });

  it('seller Pix charge, created and read, under both prefixes', async () => {
    const created = await stack.api('POST', '/sellers/pix', {
      creds: seller,
      body: { amountCents: 4321, description: 'OpenAPI', externalRef: `ref-${crypto.randomUUID()}`, webhook_url: 'https://loja.example/pix-events' },
      headers: { 'x-idempotency-key': `key-${crypto.randomUUID()}` },
    });
    expect(created.status).toBe(201);
    expect(sellerPixCharge.safeParse(created.body).error).toBeUndefined();
    for (const prefix of ['/sellers', '/rifeiro']) {
      const read = await stack.api('GET', `${prefix}/pix/${created.body.id}`, { creds: seller });
      expect(read.status).toBe(200);
      expect(sellerPixCharge.safeParse(read.body).error).toBeUndefined();
    }
  });

  it('seller webhook', async () => {
    const created = await stack.api('POST', '/sellers/webhooks', { creds: seller, body: { url: 'https://loja.example/hooks', events: ['charge.paid'] } });
    expect(created.status).toBe(201);
    expect(webhookEndpoint.safeParse(created.body).error).toBeUndefined();
  });

  it('errors, with a code the operation documents under that status', async () => {
    const unscoped = await stack.createMerchant({ name: 'Loja sem escopo', scopes: [] });
    const hook = await stack.api('POST', '/sellers/webhooks', { creds: seller, body: { url: 'https://loja.example/h2', events: ['charge.paid'] } });
    const cases = [
      { method: 'GET', path: '/sellers/webhooks', docPath: '/sellers/webhooks', body: undefined, creds: unscoped },
      { method: 'POST', path: '/sellers/webhooks', docPath: '/sellers/webhooks', body: { url: '/relative', events: ['charge.paid'] }, creds: seller },
      { method: 'POST', path: '/sellers/webhooks', docPath: '/sellers/webhooks', body: { url: 'https://loja.example/h', events: ['charge.paid', 'charge.paid'] }, creds: seller },
      { method: 'PATCH', path: `/sellers/webhooks/${hook.body.id}`, docPath: '/sellers/webhooks/{id}', body: {}, creds: seller },
      { method: 'POST', path: '/sellers/pix', docPath: '/sellers/pix', body: { amountCents: 100, splits: [{ merchantId: seller.merchantId, amountCents: 10, percentage: 10 }] }, creds: seller },
      { method: 'POST', path: '/sellers/pix', docPath: '/sellers/pix', body: { amountCents: 100, description: 'nul\u0000' }, creds: seller },
      { method: 'GET', path: '/v1/payouts/batches', docPath: '/v1/payouts/batches', body: undefined, creds: seller },
      { method: 'POST', path: '/sellers/pix', docPath: '/sellers/pix', body: { amountCents: 100 }, creds: undefined },
      { method: 'POST', path: '/sellers/pix', docPath: '/sellers/pix', body: { amountCents: -1 }, creds: seller },
      { method: 'GET', path: '/sellers/pix/no-such-charge', docPath: '/sellers/pix/{id}', body: undefined, creds: seller },
      { method: 'POST', path: '/webhooks/pix-gateway', docPath: '/webhooks/pix-gateway', body: { eventId: 'x' }, creds: undefined },
    ];
    for (const c of cases) {
      const res = await stack.api(c.method, c.path, { creds: c.creds, body: c.body });
      expect({ at: `${c.method} ${c.path}`, status: res.status >= 400 && res.status < 500 }).toEqual({ at: `${c.method} ${c.path}`, status: true });
      expect(ErrorEnvelope.safeParse(res.body).error).toBeUndefined();
      const op = (doc.paths as Record<string, Record<string, any>>)[c.docPath][c.method.toLowerCase()];
      const documentedCodes = Object.keys(op.responses[String(res.status)]?.content?.['application/json']?.examples ?? {});
      expect({ at: `${c.method} ${c.path} ${res.status}`, documented: documentedCodes.includes(res.body.error.code) }).toEqual({ at: `${c.method} ${c.path} ${res.status}`, documented: true });
    }
  });
});
