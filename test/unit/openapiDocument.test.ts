/**
 * The generated OpenAPI document is valid 3.1 and internally consistent. Route coverage (every
 * mounted route documented) is in test/integration/openapi.test.ts, which needs the real app.
 */
import { validate } from '@readme/openapi-parser';
import { buildOpenApiDocument, INTERFACE_VERSION } from '../../api/openapi/document';
import { ERROR_CODES } from '../../api/openapi/errorCodes';
import { chargeEventTypes, subscribableEventTypes } from '../../core/events/events';

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

/** The API document as a contract: what a generated client (openapi-typescript), a fuzzer and a linter rely on. */
describe('OpenAPI document: a contract a generated client can trust', () => {
  const schemas = doc.components?.schemas as Record<string, any>;
  const parameters = doc.components?.parameters as Record<string, any>;
  const deref = (node: any): any => (node?.$ref ? deref(resolve(node.$ref)) : node);
  const webhookOps = () =>
    Object.entries((doc as any).webhooks ?? {}).map(([type, item]: [string, any]) => ({ type, op: item.post }));
  const callbackOps = () =>
    operations().flatMap(({ method, path, op }) =>
      Object.values<any>((op as any).callbacks ?? {}).flatMap((callback) =>
        Object.entries<any>(callback).flatMap(([url, item]) =>
          METHODS.filter((m) => item[m]).map((m) => ({ at: `${method} ${path} → ${m} ${url}`, op: item[m] })),
        ),
      ),
    );
  const headerNames = (op: any) =>
    ((op.parameters ?? []) as any[])
      .map(deref)
      .filter((p) => p.in === 'header')
      .map((p) => `${p.name}${p.required ? '!' : '?'}`);

  it('declares security on every operation, webhook and callback (public ones [])', () => {
    const missing = [
      ...operations().map(({ method, path, op }) => ({ at: `${method} ${path}`, op })),
      ...webhookOps().map(({ type, op }) => ({ at: `webhook ${type}`, op })),
      ...callbackOps(),
    ]
      .filter(({ op }) => !Array.isArray(op.security))
      .map(({ at }) => at);
    expect(missing).toEqual([]);
    expect(webhookOps().length).toBeGreaterThan(0);
    expect(callbackOps().length).toBeGreaterThan(0);
  });

  it('has the request signature as header parameters: optional on seller, partner checkout and partner subscription routes, required on payouts and receipts, nowhere else', () => {
    const found: Record<string, string> = {};
    for (const { method, path, op } of operations()) {
      const signature = headerNames(op).filter((h) => h.startsWith('x-gateway-'));
      if (signature.length > 0) found[`${method} ${path}`] = signature.join(' ');
      for (const alternative of (op.security ?? []) as Record<string, unknown>[])
        expect(Object.keys(alternative).filter((k) => /gateway/i.test(k))).toEqual([]);
    }
    const expected = Object.fromEntries(
      operations()
        .filter(({ path }) =>
          /^\/(sellers|rifeiro|v1\/checkouts|v1\/subscriptions|v1\/payouts|v1\/receipts)(\/|$)/.test(path),
        )
        .map(({ method, path }) => [
          `${method} ${path}`,
          /^\/v1\/(payouts|receipts)/.test(path)
            ? 'x-gateway-timestamp! x-gateway-signature!'
            : 'x-gateway-timestamp? x-gateway-signature?',
        ]),
    );
    expect(found).toEqual(expected);
    expect(Object.keys(found).length).toBeGreaterThan(40);
  });

  it('declares every tag it uses, with a description, and uses every tag it declares', () => {
    const declared = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
    const used = new Set(
      [...operations().map(({ op }) => op), ...webhookOps().map(({ op }) => op)].flatMap((op: any) => op.tags ?? []),
    );
    expect([...used].filter((t) => !declared.has(t))).toEqual([]);
    expect([...declared].filter(([, description]) => !description).map(([name]) => name)).toEqual([]);
    expect([...declared.keys()].filter((t) => !used.has(t))).toEqual([]);
    const untagged = operations()
      .filter(({ op }) => !((op as any).tags?.length > 0))
      .map(({ method, path }) => `${method} ${path}`);
    expect(untagged).toEqual([]);
  });

  /** The schema a JSON pointer into a response body names (`/data/id`, `/boletos/0/id`), or undefined. */
  function schemaAt(schema: any, pointer: string): any {
    let node = deref(schema);
    for (const key of pointer.split('/').slice(1)) {
      if (/^\d+$/.test(key) && node?.items) node = deref(node.items);
      else node = deref(node?.properties?.[key]);
      if (!node) return undefined;
    }
    return node;
  }

  it('has links that resolve: an existing operation, its parameters, a property of the answer that is required', () => {
    const byId = new Map(operations().map((o) => [o.op.operationId, o]));
    const broken: string[] = [];
    let count = 0;
    for (const { method, path, op } of operations())
      for (const [status, response] of Object.entries<any>(op.responses ?? {}))
        for (const [name, link] of Object.entries<any>(response.links ?? {})) {
          count++;
          const at = `${method} ${path} ${status} → ${name}`;
          const target = byId.get(link.operationId);
          if (!target) {
            broken.push(`${at}: no operation ${link.operationId}`);
            continue;
          }
          const targetParams = new Set(((target.op as any).parameters ?? []).map((p: any) => deref(p).name));
          for (const [param, expression] of Object.entries<string>(link.parameters ?? {})) {
            if (!targetParams.has(param)) broken.push(`${at}: ${link.operationId} has no parameter ${param}`);
            const pointer = /^\$response\.body#(\/.*)$/.exec(expression)?.[1];
            const bodySchema = response.content?.['application/json']?.schema;
            if (!pointer || !schemaAt(bodySchema, pointer)) broken.push(`${at}: ${expression} names nothing`);
            // The last step is required in its object, so the value is always there to follow.
            const parentPointer = pointer?.split('/').slice(0, -1).join('/') ?? '';
            const parent = parentPointer ? schemaAt(bodySchema, parentPointer) : deref(bodySchema);
            if (pointer && !deref(parent)?.required?.includes(pointer.split('/').pop()))
              broken.push(`${at}: ${expression} is not required`);
          }
          if (
            (target.path.startsWith('/rifeiro/') || path.startsWith('/rifeiro/')) &&
            !target.path.startsWith(path.slice(0, 8))
          )
            broken.push(`${at}: crosses between /sellers and /rifeiro`);
        }
    expect(broken).toEqual([]);
    expect(count).toBeGreaterThan(20);
  });

  it('links every create to the read of what it created (POST {path} answering 201/202 → GET {path}/{id}, and each created answer to a read)', () => {
    const unlinked: string[] = [];
    for (const { method, path, op } of operations()) {
      if (method !== 'post') continue;
      const created = Object.entries<any>(op.responses ?? {}).filter(
        ([status]) => status === '201' || status === '202',
      );
      if (created.length === 0) continue;
      const reads = operations().filter(
        (o) => o.method === 'get' && new RegExp(`^${path.replace(/[{}]/g, '\\$&')}/\\{[^/}]+\\}$`).test(o.path),
      );
      // Each read is linked from a created answer (a boleto batch's 202 links to the batch instead).
      for (const read of reads) {
        const linked = created.some(([, response]) =>
          Object.values<any>(response.links ?? {}).some((l) => l.operationId === read.op.operationId),
        );
        if (!linked) unlinked.push(`POST ${path} → GET ${read.path}`);
      }
      if (reads.length > 0)
        for (const [status, response] of created)
          if (Object.keys(response.links ?? {}).length === 0) unlinked.push(`POST ${path} ${status} → (no link)`);
    }
    expect(unlinked).toEqual([]);
  });

  it('gives each webhook event type its own payload schema, and WebhookEvent discriminates them by type', () => {
    const types = webhookOps().map(({ type }) => type);
    expect(types.sort()).toEqual([...subscribableEventTypes].sort());
    const union = schemas.WebhookEvent;
    expect(union.discriminator.propertyName).toBe('type');
    expect(Object.keys(union.discriminator.mapping).sort()).toEqual([...subscribableEventTypes].sort());
    expect(union.oneOf.map((o: any) => o.$ref).sort()).toEqual(Object.values(union.discriminator.mapping).sort());
    for (const { type, op } of webhookOps()) {
      const ref = op.requestBody.content['application/json'].schema.$ref as string;
      expect({ type, ref }).toEqual({ type, ref: union.discriminator.mapping[type] });
      const event = deref({ $ref: ref });
      expect({ type, required: event.required }).toEqual({ type, required: ['eventId', 'type', 'createdAt', 'data'] });
      expect({ type, literal: event.properties.type.enum ?? [event.properties.type.const] }).toEqual({
        type,
        literal: [type],
      });
      expect({ type, createdAt: event.properties.createdAt.format }).toEqual({ type, createdAt: 'date-time' });
      // `data` names its schema (or a union of named schemas): never a free-form object.
      const data = event.properties.data;
      const named = (s: any): boolean =>
        typeof s.$ref === 'string' && (deref(s).properties !== undefined || (deref(s).anyOf ?? []).every(named));
      expect({ type, named: named(data) }).toEqual({ type, named: true });
    }
    expect(deref(schemas.ChargePaidEvent.properties.data)).toBe(schemas.SellerPixCharge);
    expect(deref(schemas.WithdrawalCompletedEvent.properties.data)).toBe(schemas.Withdrawal);
    expect(deref(schemas.MedInfractionOpenedEvent.properties.data)).toBe(schemas.MedInfraction);
    // The charge-scoped webhook of `webhook_url` receives the charge events, which it is subscribed to.
    expect(Object.keys(schemas.ChargeWebhookEvent.discriminator.mapping)).toEqual([...chargeEventTypes]);
    expect(schemas.SellerPixCharge.properties.webhook.properties.events.items.enum).toEqual([...chargeEventTypes]);
  });

  it('states date-time on every timestamp an answer carries (…At), and date on due dates', () => {
    const wrong: string[] = [];
    const seen = new Set<any>();
    const walk = (node: any, at: string) => {
      node = deref(node);
      if (!node || typeof node !== 'object' || seen.has(node)) return;
      seen.add(node);
      for (const [key, value] of Object.entries<any>(node.properties ?? {})) {
        const v = deref(value);
        const formats = [v.format, ...((v.anyOf ?? v.oneOf ?? []) as any[]).map((b) => deref(b).format)];
        if (/At$/.test(key) && !formats.includes('date-time') && key !== 'builtAt') wrong.push(`${at}.${key}`);
        if (/Date$/.test(key) && !formats.includes('date') && !formats.includes('date-time'))
          wrong.push(`${at}.${key}`);
        walk(value, `${at}.${key}`);
      }
      if (node.items) walk(node.items, `${at}[]`);
      for (const key of ['anyOf', 'oneOf', 'allOf']) (node[key] ?? []).forEach((v: any) => walk(v, at));
    };
    for (const { method, path, op } of operations())
      for (const [status, response] of Object.entries<any>(op.responses ?? {}))
        walk(response.content?.['application/json']?.schema, `${method} ${path} ${status}`);
    for (const { type, op } of webhookOps()) walk(op.requestBody.content['application/json'].schema, `webhook ${type}`);
    expect(wrong).toEqual([]);
  });

  it('documents 405 METHOD_NOT_ALLOWED with Allow (api/middleware/methodNotAllowed.ts)', () => {
    expect(ERROR_CODES.METHOD_NOT_ALLOWED.status).toBe(405);
    expect(schemas.ErrorEnvelope.properties.error.properties.code.enum).toContain('METHOD_NOT_ALLOWED');
    expect(doc.info.description).toMatch(/405 METHOD_NOT_ALLOWED[^.]*`Allow`/);
  });

  it('has parameter components only in the header or path they name', () => {
    for (const [name, p] of Object.entries<any>(parameters))
      expect({ name, in: ['header', 'path', 'query'].includes(p.in) }).toEqual({ name, in: true });
  });
});
