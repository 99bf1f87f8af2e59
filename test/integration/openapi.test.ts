/**
 * The OpenAPI document against the real app: every route mounted by createApp is documented
 * (and nothing documented is missing from the app), /openapi.json and /docs are served without
 * credentials and without any outside resource, real answers parse with the documented
 * response schemas, and every operation's idempotency header rule is what the server enforces.
 */
import crypto from 'node:crypto';
import { createApp } from '../../api/app';
import { buildOpenApiDocument, type OpenApiDocument } from '../../api/openapi/document';
import { ErrorEnvelope } from '../../api/openapi/registry';
import { healthzResponse, readyResponse } from '../../api/health/openapi';
import { signProviderCallback } from '../../core/pix/providerSignature';
import { signedRequestHeaders } from '../../core/signatures/requestSignature';
import { sellerPixCharge } from '../../api/charges/sellers/responseSchema';
import { createdWebhookEndpoint, webhookEndpoint } from '../../api/events/endpoints/openapi';
import { testLogger } from '../support/testLogs';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { listMountedRoutes, normaliseDocumentPath } from '../support/mountedRoutes';
import { sharedIntegrationStack, type SharedStack } from '../support/sharedStack';
import { accessTokenMinter } from '../support/accessTokens';
import { AppClient, uniqueEmail } from '../support/appClient';
import { checkRecordedEvents } from '../support/webhookEvents';

jest.setTimeout(120_000);

let stack: SharedStack;
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
    const fresh = require('../../api/openapi/document') as { buildOpenApiDocument: typeof buildOpenApiDocument };
    built = fresh.buildOpenApiDocument();
  });
  return built!;
}
const doc = standaloneDocument();
const DOC_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'trace'];

beforeAll(async () => {
  stack = await sharedIntegrationStack();
  seller = await stack.createMerchant({ name: 'Loja OpenAPI' });
});

afterAll(async () => {
  await stack?.stop();
});

/** An operation of the document as JSON (the document's own types are a union too wide to walk). */
interface DocOperation {
  method: string; // upper case
  path: string; // as in the document
  op: Record<string, any>;
}

function documentedOperations(): DocOperation[] {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    DOC_METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((m) => ({
      method: m.toUpperCase(),
      path,
      op: (item as Record<string, Record<string, unknown>>)[m],
    })),
  );
}

function documentedRoutes(): Set<string> {
  return new Set(documentedOperations().map(({ method, path }) => `${method} ${normaliseDocumentPath(path)}`));
}

/** The codes an operation documents under one status (one named example per code). */
function documentedCodes(op: DocOperation['op'], status: number | string): string[] {
  return Object.keys(op.responses[String(status)]?.content?.['application/json']?.examples ?? {});
}

/** The app as the server builds it; the route table does not depend on the dependency values. */
function appRoutes(): Set<string> {
  const app = createApp({
    sequelize: stack.sequelize,
    temporal: stack.temporal,
    taskQueue: stack.taskQueue,
    logger: testLogger('openapi-test'),
    credentialsEncryptionKey: stack.encryptionKey,
    providerCallbackSecret: stack.callbackSecret,
    defaultFee: { bps: 100, fixedCents: 0 },
    defaultChargeTtlSeconds: 3600,
    idempotencyTtlHours: 24,
  });
  return new Set(listMountedRoutes(app).map((r) => `${r.method} ${r.path}`));
}

describe('route coverage', () => {
  it('documents every route mounted by createApp (see docs/api/documenting-routes.md)', () => {
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
    const assets = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)]
      .map((m) => m[1])
      .filter((u) => u !== '/openapi.json');
    expect(assets).toEqual(
      expect.arrayContaining([
        '/docs/assets/swagger-ui-bundle.js',
        '/docs/assets/swagger-ui.css',
        '/docs/assets/init.js',
      ]),
    );
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

type JsonSchema = Record<string, any>;

/** A schema with its `$ref` (to components/schemas) followed and an `allOf` merged into one object schema. */
function resolved(schema: JsonSchema): JsonSchema {
  if (typeof schema.$ref === 'string')
    return resolved((doc.components?.schemas as Record<string, JsonSchema>)[schema.$ref.split('/').pop()!]);
  if (!Array.isArray(schema.allOf)) return schema;
  const parts = (schema.allOf as JsonSchema[]).map(resolved);
  return {
    ...schema,
    properties: Object.assign({}, schema.properties, ...parts.map((p) => p.properties ?? {})),
    required: [...(schema.required ?? []), ...parts.flatMap((p) => p.required ?? [])],
  };
}

const jsonType = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? 'number' : typeof value;
const admits = (schema: JsonSchema, type: string) =>
  schema.type === undefined ||
  [schema.type]
    .flat()
    .some(
      (t: string) =>
        t === type || (t === 'integer' && type === 'number') || (t === 'object' && type === 'object' && !schema.items),
    );

/**
 * Where the answer carries a property that its documented schema lists but does not mark
 * required: a generated client types it optional (`id?: string`) although the server sent it.
 * Walks the document's own schema along the answer (`$ref`, `allOf`, the `anyOf`/`oneOf` of
 * nullable and union types, arrays). Deterministic: it looks only at what this answer carries,
 * so a property the server really omits at times is never flagged by an answer without it.
 */
function presentButOptional(schema: JsonSchema, value: unknown, at = ''): string[] {
  const s = resolved(schema);
  const alternatives = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (alternatives) {
    // The branches this value can be; a property is flagged only if every such branch flags it.
    const found = alternatives
      .map(resolved)
      .filter((b) => admits(b, jsonType(value)) && (b.anyOf || b.oneOf || b.type !== undefined || b.properties))
      .map((b) => presentButOptional(b, value, at));
    return found.length === 0 ? [] : found.reduce((a, b) => a.filter((p) => b.includes(p)));
  }
  if (Array.isArray(value) && s.items)
    return [...new Set(value.flatMap((item) => presentButOptional(s.items, item, `${at}[]`)))];
  if (value === null || typeof value !== 'object' || !s.properties) return [];
  const required = new Set<string>(s.required ?? []);
  return Object.entries(value as Record<string, unknown>).flatMap(([key, v]) => {
    const property = (s.properties as Record<string, JsonSchema>)[key];
    if (!property) return [];
    return [...(required.has(key) ? [] : [`${at}.${key}`]), ...presentButOptional(property, v, `${at}.${key}`)];
  });
}

/** The answer's status is documented for the operation, and every property it carries is marked required there. */
function expectAnswerDocumented(method: string, docPath: string, res: { status: number; body: unknown }): void {
  const at = `${method} ${docPath} ${res.status}`;
  const response = (doc.paths as Record<string, Record<string, JsonSchema>>)[docPath][method.toLowerCase()].responses[
    String(res.status)
  ];
  expect({ at, documented: response !== undefined }).toEqual({ at, documented: true });
  const schema = response?.content?.['application/json']?.schema as JsonSchema | undefined;
  expect({ at, presentButOptional: schema ? presentButOptional(schema, res.body) : ['(no JSON schema)'] }).toEqual({
    at,
    presentButOptional: [],
  });
}

describe('real answers match the documented schemas, which mark required every property the server sent', () => {
  it('health', async () => {
    const healthz = await stack.api('GET', '/healthz');
    expect(healthzResponse.safeParse(healthz.body).error).toBeUndefined();
    expectAnswerDocumented('GET', '/healthz', healthz);
    const ready = await stack.api('GET', '/ready');
    expect(readyResponse.safeParse(ready.body).error).toBeUndefined();
    expectAnswerDocumented('GET', '/ready', ready);
  });

  it('seller Pix charge, created and read, under both prefixes', async () => {
    const created = await stack.api('POST', '/sellers/pix', {
      creds: seller,
      body: {
        amountCents: 4321,
        description: 'OpenAPI',
        externalRef: `ref-${crypto.randomUUID()}`,
        webhook_url: 'https://loja.example/pix-events',
      },
      headers: { 'x-idempotency-key': `key-${crypto.randomUUID()}` },
    });
    expect(created.status).toBe(201);
    expect(sellerPixCharge.safeParse(created.body).error).toBeUndefined();
    expectAnswerDocumented('POST', '/sellers/pix', created);
    for (const prefix of ['/sellers', '/rifeiro']) {
      const read = await stack.api('GET', `${prefix}/pix/${created.body.id}`, { creds: seller });
      expect(read.status).toBe(200);
      expect(sellerPixCharge.safeParse(read.body).error).toBeUndefined();
      expectAnswerDocumented('GET', `${prefix}/pix/{id}`, read);
    }
  });

  it('seller webhook', async () => {
    const created = await stack.api('POST', '/sellers/webhooks', {
      creds: seller,
      body: { url: 'https://loja.example/hooks', events: ['charge.paid'] },
    });
    expect(created.status).toBe(201);
    expect(createdWebhookEndpoint.safeParse(created.body).error).toBeUndefined();
    expectAnswerDocumented('POST', '/sellers/webhooks', created);
    const read = await stack.api('GET', `/sellers/webhooks/${created.body.id}`, { creds: seller });
    expect(webhookEndpoint.safeParse(read.body).error).toBeUndefined();
    expectAnswerDocumented('GET', '/sellers/webhooks/{id}', read);
  });

  it('errors, with a code the operation documents under that status', async () => {
    const unscoped = await stack.createMerchant({ name: 'Loja sem escopo', scopes: [] });
    const hook = await stack.api('POST', '/sellers/webhooks', {
      creds: seller,
      body: { url: 'https://loja.example/h2', events: ['charge.paid'] },
    });
    const cases = [
      { method: 'GET', path: '/sellers/webhooks', docPath: '/sellers/webhooks', body: undefined, creds: unscoped },
      {
        method: 'POST',
        path: '/sellers/webhooks',
        docPath: '/sellers/webhooks',
        body: { url: '/relative', events: ['charge.paid'] },
        creds: seller,
      },
      {
        method: 'POST',
        path: '/sellers/webhooks',
        docPath: '/sellers/webhooks',
        body: { url: 'https://loja.example/h', events: ['charge.paid', 'charge.paid'] },
        creds: seller,
      },
      {
        method: 'PATCH',
        path: `/sellers/webhooks/${hook.body.id}`,
        docPath: '/sellers/webhooks/{id}',
        body: {},
        creds: seller,
      },
      {
        method: 'POST',
        path: '/sellers/pix',
        docPath: '/sellers/pix',
        body: { amountCents: 100, splits: [{ merchantId: seller.merchantId, amountCents: 10, percentage: 10 }] },
        creds: seller,
      },
      {
        method: 'POST',
        path: '/sellers/pix',
        docPath: '/sellers/pix',
        body: { amountCents: 100, description: 'nul\u0000' },
        creds: seller,
      },
      { method: 'GET', path: '/v1/payouts/batches', docPath: '/v1/payouts/batches', body: undefined, creds: seller },
      { method: 'POST', path: '/sellers/pix', docPath: '/sellers/pix', body: { amountCents: 100 }, creds: undefined },
      { method: 'POST', path: '/sellers/pix', docPath: '/sellers/pix', body: { amountCents: -1 }, creds: seller },
      {
        method: 'GET',
        path: '/sellers/pix/no-such-charge',
        docPath: '/sellers/pix/{id}',
        body: undefined,
        creds: seller,
      },
      {
        method: 'POST',
        path: '/webhooks/pix-gateway',
        docPath: '/webhooks/pix-gateway',
        body: { eventId: 'x' },
        creds: undefined,
      },
    ];
    for (const c of cases) {
      const res = await stack.api(c.method, c.path, { creds: c.creds, body: c.body });
      expect({ at: `${c.method} ${c.path}`, status: res.status >= 400 && res.status < 500 }).toEqual({
        at: `${c.method} ${c.path}`,
        status: true,
      });
      expect(ErrorEnvelope.safeParse(res.body).error).toBeUndefined();
      expectAnswerDocumented(c.method, c.docPath, res);
      const op = (doc.paths as Record<string, Record<string, any>>)[c.docPath][c.method.toLowerCase()];
      expect({
        at: `${c.method} ${c.path} ${res.status}`,
        documented: documentedCodes(op, res.status).includes(res.body.error.code),
      }).toEqual({ at: `${c.method} ${c.path} ${res.status}`, documented: true });
    }
  });
});

describe('idempotency headers: what the document says is what the server enforces', () => {
  const IDEMPOTENCY_HEADERS = ['idempotency-key', 'x-idempotency-key'];
  let bearer: () => Promise<string>;
  let lastTimestamp = 0;

  beforeAll(async () => {
    const registered = await new AppClient(stack.apiUrl).register({
      email: uniqueEmail('openapi-idem'),
      password: 'openapi password 1',
    });
    expect(registered.status).toBe(201);
    // A fresh session per request: a probe of POST /auth/logout ends the one it is sent with.
    bearer = accessTokenMinter(stack.encryptionKey, registered.body.id);
  });

  /** An operation's header parameters, $refs to components resolved. */
  function headerParameters(op: DocOperation['op']): { name: string; required?: boolean }[] {
    const components = (doc.components?.parameters ?? {}) as Record<
      string,
      { name: string; in: string; required?: boolean }
    >;
    return ((op.parameters ?? []) as ({ $ref: string } | { name: string; in: string; required?: boolean })[])
      .map((p) => ('$ref' in p ? components[p.$ref.split('/').pop()!] : p))
      .filter((p) => p.in === 'header');
  }

  /**
   * The operation called as a client following the document would call it, authenticated as
   * its security asks (credentials and a signature, a bearer token, the provider's signature),
   * with no idempotency header. Path parameters are fresh UUIDs and a JSON body is `{}`: the key
   * is checked before anything of the request is read (api/idempotency/header.ts,
   * requireIdempotencyKey), so neither has to be valid for the answer to show the key's rule.
   */
  async function callWithoutKey({ method, path, op }: DocOperation) {
    const url = path.replace(/\{\w+\}/g, () => crypto.randomUUID());
    const body = op.requestBody ? '{}' : undefined;
    const headers: Record<string, string> = body ? { 'content-type': 'application/json' } : {};
    const schemes = new Set(
      ((op.security ?? []) as Record<string, string[]>[]).flatMap((alternative) => Object.keys(alternative)),
    );
    const ts = (lastTimestamp = Math.max(Date.now(), lastTimestamp + 1));
    if (schemes.has('clientId'))
      Object.assign(
        headers,
        signedRequestHeaders({ ...seller, method, path: url, rawBody: body ?? '', timestampMs: ts }),
      );
    if (schemes.has('bearerAuth')) headers.authorization = `Bearer ${await bearer()}`;
    if (schemes.has('providerSignature')) {
      headers['x-provider-timestamp'] = String(ts);
      headers['x-provider-signature'] = signProviderCallback(body ?? '', ts, stack.callbackSecret);
    }
    const res = await fetch(`${stack.apiUrl}${url}`, { method, headers, body, signal: AbortSignal.timeout(20_000) });
    // Only JSON is read: a page, a PDF or an event stream is not an idempotency refusal.
    const json = res.headers.get('content-type')?.startsWith('application/json')
      ? ((await res.json()) as { error?: { code?: string; message?: string } })
      : (await res.body?.cancel(), undefined);
    return { status: res.status, code: json?.error?.code, message: json?.error?.message ?? '' };
  }

  it('every operation, sent without its idempotency header: refused with 400 IDEMPOTENCY_KEY_REQUIRED exactly where the document marks a header required', async () => {
    const operations = documentedOperations();
    const mismatches: string[] = [];
    const unreached: string[] = [];
    const required: string[] = [];
    for (const operation of operations) {
      const { method, path, op } = operation;
      const keyHeaders = headerParameters(op).filter((p) => IDEMPOTENCY_HEADERS.includes(p.name.toLowerCase()));
      const says = keyHeaders.some((p) => p.required)
        ? 'required'
        : keyHeaders.length > 0
          ? 'optional'
          : 'not documented';
      const res = await callWithoutKey(operation);
      const at = `${method} ${path} (document: ${says}) → ${res.status} ${res.code ?? ''}`;
      // A probe stopped before the route (authentication, scope, rate limit, no such route) shows nothing about the key.
      const authenticated =
        ((op.security ?? []) as Record<string, string[]>[]).every(
          (alternative) => Object.keys(alternative).length > 0,
        ) && (op.security ?? []).length > 0;
      if (
        (authenticated && (res.status === 401 || res.code === 'INSUFFICIENT_SCOPE')) ||
        res.status === 429 ||
        res.message.startsWith('no route')
      )
        unreached.push(at);
      if (says === 'required') {
        required.push(`${method} ${path}`);
        const refused =
          res.status === 400 &&
          res.code === 'IDEMPOTENCY_KEY_REQUIRED' &&
          documentedCodes(op, 400).includes('IDEMPOTENCY_KEY_REQUIRED');
        if (!refused) mismatches.push(at);
      } else if (res.code === 'IDEMPOTENCY_KEY_REQUIRED') {
        mismatches.push(at);
      }
    }
    expect(operations.length).toBeGreaterThan(100);
    expect(unreached).toEqual([]);
    expect(mismatches).toEqual([]);
    // The partner checkout's rule (spec: `Idempotency-Key` required) is among those checked.
    expect(required).toContain('POST /v1/checkouts');
  });
});

describe('405 Method Not Allowed: a documented path with a method it does not document', () => {
  /**
   * The methods `Allow` must name for a concrete URL: those documented on every path it matches
   * (as Express routes it, /med/infractions/sync is also /med/infractions/{id}), and HEAD wherever GET is.
   */
  function allowFor(url: string): string[] {
    const methods = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      const pattern = new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/\{\w+\}/g, '[^/]+')}$`);
      if (pattern.test(url)) for (const m of DOC_METHODS.filter((m) => item[m])) methods.add(m.toUpperCase());
    }
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }

  it('answers DELETE /sellers/webhooks with 405, Allow: GET, HEAD, POST and the error envelope, with or without credentials', async () => {
    for (const creds of [seller, undefined]) {
      const res = await stack.api('DELETE', '/sellers/webhooks', { creds });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('GET, HEAD, POST');
      expect(ErrorEnvelope.safeParse(res.body).error).toBeUndefined();
      expect(res.body.error).toMatchObject({ code: 'METHOD_NOT_ALLOWED', details: { allow: ['GET', 'HEAD', 'POST'] } });
      expect(res.headers.get('x-trace-id')).toBe(res.body.error.traceId);
    }
    const pix = await stack.api('DELETE', '/sellers/pix', { creds: seller });
    expect({ status: pix.status, allow: pix.headers.get('allow') }).toEqual({ status: 405, allow: 'POST' });
  });

  it('answers every documented path so, Allow naming exactly its documented methods (P0 routes in the P0 envelope)', async () => {
    const wrong: string[] = [];
    let probed = 0;
    for (const path of Object.keys(doc.paths ?? {})) {
      const url = path.replace(/\{\w+\}/g, () => crypto.randomUUID());
      const allow = allowFor(url);
      const method = ['DELETE', 'PUT', 'PATCH', 'POST', 'GET'].find((m) => !allow.includes(m));
      if (!method) continue;
      const res = await fetch(`${stack.apiUrl}${url}`, { method, signal: AbortSignal.timeout(20_000) });
      probed++;
      const body = (await res.json().catch(() => undefined)) as Record<string, any> | undefined;
      const code = path.startsWith('/v1/checkouts')
        ? body?.success === false && body.data === null && body.error?.code
        : body?.error?.code;
      const got = `${res.status} ${res.headers.get('allow')} ${code}`;
      const expected = `405 ${allow.join(', ')} METHOD_NOT_ALLOWED`;
      if (got !== expected) wrong.push(`${method} ${path}: ${got}, expected ${expected}`);
    }
    expect(wrong).toEqual([]);
    expect(probed).toBeGreaterThan(90);
  });

  it('still answers an unknown path 404 and a documented method as before', async () => {
    expect((await stack.api('DELETE', '/no/such/path')).status).toBe(404);
    expect((await stack.api('GET', '/healthz')).status).toBe(200);
    expect((await fetch(`${stack.apiUrl}/healthz`, { method: 'HEAD' })).status).toBe(200);
  });
});

describe('webhook events', () => {
  it('every event recorded matches the payload schema the document gives its type (data of charge.created is the charge)', async () => {
    const { types, mismatches } = await checkRecordedEvents(stack.sequelize);
    expect(mismatches).toEqual([]);
    expect(types).toContain('charge.created');
  });
});
