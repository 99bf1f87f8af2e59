/**
 * Seller routes are mounted twice (api/sellers/router.ts): at /sellers (canonical) and at the legacy /rifeiro
 * alias. `registerSellerPath` documents both from one registration, so the alias can never drift
 * from the canonical route; the alias is marked deprecated and shows the headers it adds. It also
 * adds what every seller route shares: the security requirement, the optional request signature
 * headers, and the errors of the authentication, signature and rate-limit middleware in front of
 * every seller router.
 */
import type { ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { ErrorCode } from './errorCodes';
import { errorResponses, registry, security, signatureHeaders } from './registry';

export const SELLERS_PREFIX = '/sellers';
export const LEGACY_PREFIX = '/rifeiro';

/** Answered by the middleware in front of every seller route (api/sellers/router.ts, api/app.ts). */
const SELLER_ERRORS: ErrorCode[] = [
  'CREDENTIALS_REQUIRED',
  'INVALID_CREDENTIALS',
  'MERCHANT_ID_REQUIRED',
  'INVALID_SIGNATURE',
  'INSUFFICIENT_SCOPE',
  'RATE_LIMITED',
];

const legacyHeaders = {
  Deprecation: registry.registerComponent('headers', 'Deprecation', {
    description: 'Always `true`: /rifeiro is a legacy alias of /sellers.',
    schema: { type: 'string', enum: ['true'] },
  }).ref,
  Link: registry.registerComponent('headers', 'SuccessorLink', {
    description: '`</sellers>; rel="successor-version"`',
    schema: { type: 'string' },
  }).ref,
};

export type SellerRouteConfig = Omit<RouteConfig, 'security'> & {
  /** Error codes this route answers besides the shared seller ones; grouped by status with examples. */
  errors?: ErrorCode[];
  /** Defaults to client credentials (the request signature, verified when sent, is a pair of header parameters). */
  security?: RouteConfig['security'];
};

/** `path` must start with /sellers/ and use OpenAPI parameters (`{id}`, not `:id`). */
export function registerSellerPath({ errors = [], ...config }: SellerRouteConfig): void {
  if (!config.path.startsWith(`${SELLERS_PREFIX}/`))
    throw new Error(`registerSellerPath: ${config.path} is not under ${SELLERS_PREFIX}/`);
  const headers = config.request?.headers ?? [];
  if (!Array.isArray(headers)) throw new Error(`registerSellerPath: ${config.path} must give its headers as an array`);
  const route: RouteConfig = {
    ...config,
    security: config.security ?? security.clientCredentials,
    request: { ...config.request, headers: [...headers, ...signatureHeaders.optional] },
    responses: { ...config.responses, ...errorResponses(...SELLER_ERRORS, ...errors) },
  };
  registry.registerPath(route);

  const responses: RouteConfig['responses'] = {};
  for (const [status, response] of Object.entries(route.responses)) {
    // A $ref response or zod-object headers are left as they are (none of ours use either).
    if ('$ref' in response || isZodObject(response.headers)) responses[status] = response;
    else
      responses[status] = {
        ...response,
        headers: { ...response.headers, ...legacyHeaders },
        // An alias links to the aliases: a client that started on /rifeiro stays there.
        ...(response.links ? { links: legacyLinks(response.links) } : {}),
      };
  }
  registry.registerPath({
    ...route,
    path: LEGACY_PREFIX + route.path.slice(SELLERS_PREFIX.length),
    operationId: route.operationId ? `${route.operationId}Legacy` : undefined,
    tags: ['Legacy /rifeiro'],
    deprecated: true,
    summary: `${route.summary ?? route.path} (legacy alias)`,
    description:
      `Deprecated alias of \`${route.method.toUpperCase()} ${route.path}\`, identical in behaviour; use /sellers.\n\n${route.description ?? ''}`.trim(),
    responses,
  });
}

function legacyLinks(links: NonNullable<ResponseConfig['links']>): NonNullable<ResponseConfig['links']> {
  return Object.fromEntries(
    Object.entries(links).map(([name, link]) => [
      name,
      '$ref' in link || !link.operationId
        ? link
        : {
            ...link,
            operationId: `${link.operationId}Legacy`,
            description: link.description?.replace(link.operationId, `${link.operationId}Legacy`),
          },
    ]),
  );
}

function isZodObject(
  headers: ResponseConfig['headers'],
): headers is Extract<ResponseConfig['headers'], { _zod: unknown }> {
  return headers !== undefined && '_zod' in headers;
}
