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
    METHODS.filter((m) => (item as Record<string, unknown>)[m]).map((method) => ({ method, path, op: (item as Record<string, Operation>)[method] })),
  );
}

/** Every `$ref` anywhere in the document, with where it was found. */
function refs(node: unknown, at = '#'): { ref: string; at: string }[] {
  if (Array.isArray(node)) return node.flatMap((n, i) => refs(n, `${at}/${i}`));
  if (!node || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [{ ref: v, at }] : refs(v, `${at}/${k}`)));
}

function resolve(ref: string): unknown {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, key) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[key] : undefined), doc);
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

  it('has responses, a 2xx, explicit security and a unique operationId on every operation', () => {
    const ids = new Set<string>();
    for (const { method, path, op } of operations()) {
      const where = `${method.toUpperCase()} ${path}`;
      expect({ where, statuses: Object.keys(op.responses ?? {}) }).toEqual({ where, statuses: expect.arrayContaining([expect.stringMatching(/^2\d\d$/)]) });
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
    expect(legacy.map(key).sort()).toEqual(sellers.map((o) => key({ ...o, path: o.path.replace(/^\/sellers/, '/rifeiro') })).sort());
    expect(legacy.every((o) => o.op.deprecated === true)).toBe(true);
    expect(sellers.some((o) => o.op.deprecated)).toBe(false);
  });

  it('shows each error example under the status its code is answered with', () => {
    for (const { method, path, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const examples = response.content?.['application/json']?.examples ?? {};
        for (const [code, example] of Object.entries<any>(examples)) {
          expect({ at: `${method} ${path} ${status}`, code, status: ERROR_CODES[code as keyof typeof ERROR_CODES]?.status }).toEqual({
            at: `${method} ${path} ${status}`,
            code: example.value.error.code,
            status: Number(status),
          });
        }
      }
    }
  });

  it('declares the security schemes of the spec', () => {
    const schemes = doc.components?.securitySchemes as Record<string, { in: string; name: string }>;
    expect(Object.fromEntries(Object.entries(schemes).map(([k, v]) => [k, `${v.in}:${v.name}`]))).toEqual({
      clientId: 'header:x-client-id',
      clientSecret: 'header:x-client-secret',
      gatewayTimestamp: 'header:x-gateway-timestamp',
      gatewaySignature: 'header:x-gateway-signature',
      providerTimestamp: 'header:x-provider-timestamp',
      providerSignature: 'header:x-provider-signature',
    });
  });
});
