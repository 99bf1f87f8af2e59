/**
 * The generated OpenAPI document is valid 3.1 and internally consistent. Route coverage (every
 * mounted route documented) is in test/integration/openapi.test.ts, which needs the real app.
 */
import { validate } from '@readme/openapi-parser';
import { buildOpenApiDocument, INTERFACE_VERSION } from '../../api/openapi/document';
import { ERROR_CODES } from '../../api/openapi/errorCodes';

const doc = buildOpenApiDocument();
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

type Operation = { responses?: Record<string, any>; security?: unknown[]; deprecated?: boolean; operationId?: string };
function operations(): { method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((method) => ({
      method,
      path,
      op: (item as Record<string, Operation>)[method],
    })),
  );
}

/** Every `$ref` anywhere in the document, with where it was found. */
function refs(node: unknown, at = '#'): { ref: string; at: string }[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => refs(n, `${at}/${i}`));
  if (!node || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([k, v]) =>
    k === '$ref' && typeof v === 'string' ? [{ ref: v, at }] : refs(v, `${at}/${k}`),
  );
}

function resolve(ref: string): unknown {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>(
      (node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined),
      doc,
    );
}

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document for interface version 2.0.0', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(INTERFACE_VERSION);
    expect(INTERFACE_VERSION).toBe('2.0.0');
    expect(doc.servers).toEqual([{ url: '/' }]);
    // The validator dereferences in place: give it a copy.
    const result = await validate(JSON.parse(JSON.stringify(doc)));
    expect(result).toMatchObject({ valid: true });
  });

  // A form POST of the hosted page (simulate-payment) answers 303 See Other: its success is a redirect.
  it('has responses, a 2xx (or 303 for a form POST), explicit security and a unique operationId on every operation', () => {
    const ids = new Set<string>();
    for (const { method, path, op } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      expect({ where, statuses: Object.keys(op.responses ?? {}) }).toEqual({
        where,
        statuses: expect.arrayContaining([expect.stringMatching(/^(2\d\d|303)$/)]),
      });
      expect({ where, security: Array.isArray(op.security) }).toEqual({ where, security: true });
      expect({ where, operationId: op.operationId && !ids.has(op.operationId) }).toEqual({ where, operationId: true });
      ids.add(op.operationId!);
    }
  });

  it('resolves every $ref to an existing component', () => {
    const dangling = refs(doc).filter(({ ref }) => resolve(ref) === undefined);
    expect(dangling).toEqual([]);
  });

  it('documents every /sellers operation again as a deprecated /rifeiro alias, and nothing else there', () => {
    const ops = operations();
    const key = (o: { method: string; path: string }) => `${o.method} ${o.path}`;
    const sellers = ops.filter((o) => o.path.startsWith('/sellers/'));
    const legacy = ops.filter((o) => o.path.startsWith('/rifeiro/'));
    expect(sellers.length).toBeGreaterThan(0);
    expect(legacy.map(key).sort()).toEqual(
      sellers.map((o) => key({ ...o, path: o.path.replace(/^\/sellers/, '/rifeiro') })).sort(),
    );
    expect(legacy.every((o) => o.op.deprecated === true)).toBe(true);
    expect(sellers.some((o) => o.op.deprecated)).toBe(false);
  });

  it('shows each error example under the status its code is answered with', () => {
    for (const { method, path, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const examples = response.content?.['application/json']?.examples ?? {};
        for (const [code, example] of Object.entries<any>(examples)) {
          expect({
            at: `${method} ${path} ${status}`,
            code,
            status: ERROR_CODES[code as keyof typeof ERROR_CODES]?.status,
          }).toEqual({
            at: `${method} ${path} ${status}`,
            code: example.value.error.code,
            status: Number(status),
          });
        }
      }
    }
  });

  it('declares the security schemes of the spec (the request signature is header parameters, not a scheme)', () => {
    const schemes = doc.components?.securitySchemes as Record<
      string,
      { in?: string; name?: string; type: string; scheme?: string }
    >;
    expect(
      Object.fromEntries(
        Object.entries(schemes).map(([k, v]) => [k, v.type === 'http' ? `http:${v.scheme}` : `${v.in}:${v.name}`]),
      ),
    ).toEqual({
      bearerAuth: 'http:bearer',
      metricsToken: 'http:bearer',
      clientId: 'header:x-client-id',
      clientSecret: 'header:x-client-secret',
      providerTimestamp: 'header:x-provider-timestamp',
      providerSignature: 'header:x-provider-signature',
    });
  });
});

/** What the code enforces, said by the document (schemathesis found each of these missing). */
describe('OpenAPI document: the rules the code enforces', () => {
  const schemas = doc.components?.schemas as Record<string, any>;
  const deref = (node: any): any => (node?.$ref ? deref(resolve(node.$ref)) : node);
  const codesAt = (op: Operation, status: number) =>
    Object.keys(op.responses?.[String(status)]?.content?.['application/json']?.examples ?? {});

  it('lets a replayed rotate-secret answer secret: null (a secret is never shown twice)', () => {
    const op = (doc.paths as any)['/sellers/webhooks/{id}/rotate-secret'].post as Operation;
    const secret = deref(op.responses!['200'].content['application/json'].schema).properties.secret;
    expect(secret.type).toEqual(['string', 'null']);
    expect(secret.description).toMatch(/replay/);
  });

  it('webhook events are unique, the url is a URI, and a PATCH names at least one field', () => {
    for (const name of ['CreateWebhookRequest', 'UpdateWebhookRequest']) {
      expect({ name, uniqueItems: schemas[name].properties.events.uniqueItems }).toEqual({ name, uniqueItems: true });
      expect({ name, format: schemas[name].properties.url.format }).toEqual({ name, format: 'uri' });
    }
    expect(schemas.UpdateWebhookRequest.minProperties).toBe(1);
    expect(schemas.CreateSellerPixRequest.properties.webhook_url.format).toBe('uri');
  });

  it('a split gives exactly one of amountCents and percentage', () => {
    const split = deref(schemas.CreateSellerPixRequest.properties.splits.items);
    expect(split.oneOf).toEqual([{ required: ['amountCents'] }, { required: ['percentage'] }]);
  });

  it('caps metadata and the charge description', () => {
    for (const name of ['CreateSellerPixRequest', 'CreatePayoutBatchRequest']) {
      const metadata = schemas[name].properties.metadata;
      expect({ name, maxProperties: metadata.maxProperties, keyLength: metadata.propertyNames?.maxLength }).toEqual({
        name,
        maxProperties: 50,
        keyLength: 64,
      });
    }
    expect(schemas.CreateSellerPixRequest.properties.description.maxLength).toBe(140);
  });

  it('refuses control characters in every free-text string of a request body (a pattern on each)', () => {
    const unpatterned: string[] = [];
    const walk = (node: any, at: string) => {
      node = deref(node);
      if (!node || typeof node !== 'object') return;
      const types = [node.type].flat();
      if (types.includes('string') && !node.enum && !node.format && !node.pattern) unpatterned.push(at);
      for (const [k, v] of Object.entries<any>(node.properties ?? {})) walk(v, `${at}.${k}`);
      if (node.items) walk(node.items, `${at}[]`);
      for (const key of ['anyOf', 'oneOf', 'allOf'])
        (node[key] ?? []).forEach((v: any, i: number) => walk(v, `${at}<${key}${i}>`));
      if (node.additionalProperties && typeof node.additionalProperties === 'object')
        walk(node.additionalProperties, `${at}{}`);
    };
    for (const { method, path, op } of operations()) {
      const body = (op as any).requestBody?.content?.['application/json']?.schema;
      if (body && !path.startsWith('/webhooks/')) walk(body, `${method} ${path}`);
    }
    expect(unpatterned).toEqual([]);
  });

  it('documents 403 INSUFFICIENT_SCOPE on every merchant route, and PAYOUTS_NOT_ENABLED on every payout route', () => {
    for (const { method, path, op } of operations()) {
      const at = `${method} ${path}`;
      if (/^\/(sellers|rifeiro|v1\/payouts)\//.test(`${path}/`))
        expect({ at, codes: codesAt(op, 403) }).toEqual({ at, codes: ['INSUFFICIENT_SCOPE'] });
      if (path.startsWith('/v1/payouts'))
        expect({ at, codes: codesAt(op, 400) }).toEqual({
          at,
          codes: expect.arrayContaining(['PAYOUTS_NOT_ENABLED', 'VALIDATION_ERROR']),
        });
    }
  });

  it('documents the rate limit on /ready', () => {
    expect(codesAt((doc.paths as any)['/ready'].get, 429)).toEqual(['RATE_LIMITED']);
  });
});
