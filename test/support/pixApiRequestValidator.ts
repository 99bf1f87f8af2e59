/**
 * Checks API Pix requests against the BCB's own OpenAPI document (release 2.9.0, kept in
 * docs/standards/api-pix-2.9.0.yaml) with openapi-backend, a validator we did not write: the
 * route must be one of the standard's operations, and its path and query parameters and its JSON
 * body must follow the document's schemas. Plug it into whatever receives the gateway's requests (the unit tests' fake PSP, the
 * sandbox in integration tests) and assert that every request had zero violations.
 *
 * The document is read with the errata every API Pix test applies (test/support/pixApiSpec.ts:
 * e.g. CPF patterns written as JavaScript regex literals), and two adaptations for the tool, not
 * to loosen a rule:
 *  - the document has no operationIds, which openapi-backend keys its validators by: each
 *    operation gets "<METHOD> <path>";
 *  - its servers end in `/api/` while the paths lack the `v2` that its description puts in every
 *    URL; requests are matched below the base path the client is configured with (`apiRoot`).
 *  - the payload routes (`/{pixUrlAccessToken}`, `/cobv/{pixUrlAccessToken}`,
 *    `/rec/{recUrlAccessToken}`) have servers of their own (the location's host, where the payer's
 *    PSP reads a payload), which openapi-backend ignores: `/rec/{recUrlAccessToken}` would take
 *    every `GET /rec/{idRec}` of the API. Operations with their own servers are not under the API
 *    root, so they are left out here.
 * Formats (date-time of `inicio`/`fim`, uri of `webhookUrl`) are checked with ajv-formats.
 */
import addFormats from 'ajv-formats';
import { OpenAPIBackend, type Document } from 'openapi-backend';
import { pixApiDocument, pixApiDocumentPath } from './pixApiSpec';

/** A request as the receiving server saw it. */
export interface ReceivedRequest {
  method: string;
  /** Path and query string as received, e.g. "/api/v2/pix?inicio=…". */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The raw body, when there is one. */
  body?: string;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;
const validators = new Map<string, Promise<PixApiRequestValidator>>();

export class PixApiRequestValidator {
  private constructor(
    private readonly api: OpenAPIBackend,
    private readonly apiRoot: string,
  ) {}

  /** One per document and root per process: parsing and dereferencing the document is the costly part. */
  static create(opts: { apiRoot?: string; document?: string } = {}): Promise<PixApiRequestValidator> {
    const apiRoot = (opts.apiRoot ?? '/api/v2').replace(/\/+$/, '');
    const document = opts.document ?? pixApiDocumentPath();
    const key = `${document}\n${apiRoot}`;
    let made = validators.get(key);
    if (!made) {
      made = PixApiRequestValidator.make(document, apiRoot);
      validators.set(key, made);
    }
    return made;
  }

  private static async make(document: string, apiRoot: string): Promise<PixApiRequestValidator> {
    // The document with the errata every API Pix test applies (test/support/pixApiSpec.ts).
    const definition = withOperationIds((await pixApiDocument(document)) as Document);
    const api = new OpenAPIBackend({
      definition,
      apiRoot,
      strict: false,
      quick: true,
      customizeAjv: (ajv) => {
        addFormats(ajv);
        return ajv;
      },
    });
    await api.init();
    return new PixApiRequestValidator(api, apiRoot);
  }

  /** Requests outside the API root (the OAuth token endpoint) are not the document's business. */
  concerns(req: ReceivedRequest): boolean {
    const p = req.url.split('?')[0];
    return p === this.apiRoot || p.startsWith(`${this.apiRoot}/`);
  }

  /** What is wrong with the request by the document, one line each; empty when nothing is. */
  violationsOf(req: ReceivedRequest): string[] {
    return requestViolations(this.api, req, 'the standard');
  }
}

/**
 * openapi-backend routes by operationId; the document has none: "<METHOD> <path>" stands in.
 * Operations served at a host of their own (the payload routes, see the file comment) are dropped.
 */
function withOperationIds(document: Document): Document {
  for (const [route, item] of Object.entries(document.paths ?? {})) {
    const operations = item as Record<string, { operationId?: string; servers?: unknown } | undefined>;
    for (const method of METHODS) {
      const operation = operations[method];
      if (operation?.servers) delete operations[method];
      else if (operation && !operation.operationId) operation.operationId = `${method.toUpperCase()} ${route}`;
    }
    if (!METHODS.some((m) => operations[m])) delete document.paths?.[route];
  }
  return document;
}

/**
 * What is wrong with a request by an OpenAPI document (openapi-backend), one line each: no
 * operation for its method and path, a body not sent as JSON, each schema error. Empty when
 * nothing is. `document` names it in the "no operation" line. Shared by the PSP request validators.
 */
export function requestViolations(api: OpenAPIBackend, req: ReceivedRequest, document: string): string[] {
  const [pathname, query = ''] = req.url.split('?');
  const request = {
    method: req.method.toLowerCase(),
    path: pathname,
    query,
    headers: Object.fromEntries(
      Object.entries(req.headers).filter((e): e is [string, string | string[]] => e[1] !== undefined),
    ),
    body: req.body === undefined || req.body === '' ? undefined : req.body,
  };
  const label = `${req.method} ${pathname}`;
  const operation = api.matchOperation(request);
  if (!operation) return [`${label}: no operation of ${document} has this method and path`];
  const violations: string[] = [];
  if (request.body !== undefined && !/^application\/json\b/i.test(String(request.headers['content-type'] ?? ''))) {
    violations.push(`${label}: the body is not sent as application/json`);
  }
  const result = api.validateRequest(request, operation);
  for (const e of result.errors ?? [])
    violations.push(
      `${label} (${operation.operationId}): ${e.instancePath || '/'} ${e.message ?? e.keyword}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
    );
  return violations;
}
