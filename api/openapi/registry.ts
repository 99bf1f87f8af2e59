/**
 * The one OpenAPI registry every route module documents itself into (see `api/<concern>/openapi.ts`),
 * plus what those registrations share: security schemes, the error envelope, idempotency headers.
 * Request schemas are the zod schemas that validate, so the document cannot drift from them.
 */
import { extendZodWithOpenApi, OpenAPIRegistry, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { idempotencyKeyHeader } from '../idempotency/header';
import { SIGNATURE_HEX_PATTERN, SIGNATURE_TIMESTAMP_PATTERN } from '../../core/signatures/requestSignature';
import { ERROR_CODES, ERROR_CODE_LIST, type ErrorCode } from './errorCodes';

// Adds `.openapi()` (metadata only, validation is untouched); `registry.register` needs it.
extendZodWithOpenApi(z);

export const registry = new OpenAPIRegistry();

// --- security -------------------------------------------------------------------------------

const apiKeyHeader = (name: string, description: string) => ({
  type: 'apiKey' as const,
  in: 'header' as const,
  name,
  description,
});

registry.registerComponent(
  'securitySchemes',
  'clientId',
  apiKeyHeader(
    'x-client-id',
    'Client id of the API credential (`cli_…`). Always sent together with `x-client-secret`.',
  ),
);
registry.registerComponent(
  'securitySchemes',
  'clientSecret',
  apiKeyHeader(
    'x-client-secret',
    'Client secret of the API credential (`sk_…`), shown once at creation. Keep it on the server; never log it.',
  ),
);
registry.registerComponent(
  'securitySchemes',
  'providerTimestamp',
  apiKeyHeader(
    'x-provider-timestamp',
    'Set by the Pix provider: Unix time in milliseconds, within ±300 s of the server clock.',
  ),
);
registry.registerComponent(
  'securitySchemes',
  'providerSignature',
  apiKeyHeader(
    'x-provider-signature',
    'Set by the Pix provider: lower-case hex HMAC-SHA256 of `{timestamp}.{rawBody}` keyed with the provider callback secret.',
  ),
);

registry.registerComponent('securitySchemes', 'bearerAuth', {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description: "A signed-in user's access token from POST /auth/login (15 minutes; renew with POST /auth/refresh).",
});

registry.registerComponent('securitySchemes', 'metricsToken', {
  type: 'http',
  scheme: 'bearer',
  description:
    'METRICS_TOKEN of the server, for /metrics and /metrics/perf-db. Required whenever the server sets it; when unset, these routes are open in development and test and absent (404) in production.',
});

const clientCredentials = { clientId: [], clientSecret: [] };

/**
 * Security requirements for `registerPath({ security })`. The schemes of one object are required
 * together; several objects are alternatives. Every operation states one (public ones `none`).
 * The request signature is not among them: see `signatureHeaders`.
 */
export const security = {
  /** Client credentials: seller routes, partner checkouts, payouts, receipts (with `signatureHeaders`). */
  clientCredentials: [clientCredentials],
  providerCallback: [{ providerTimestamp: [], providerSignature: [] }],
  /** Application API: a signed-in user's bearer access token. */
  bearer: [{ bearerAuth: [] }],
  none: [],
  /** /metrics and /metrics/perf-db: the metrics token, or nothing where the server sets none (development, test). */
  metrics: [{ metricsToken: [] }, {}] as Record<string, string[]>[],
};

// --- headers and parameters -----------------------------------------------------------------

const traceIdHeader = registry.registerComponent('headers', 'TraceId', {
  description: 'Trace id of this request (also `error.traceId`); quote it to support.',
  schema: { type: 'string', format: 'uuid' },
});

/** Both idempotency header spellings are accepted everywhere (`Idempotency-Key` wins when both are sent). */
export type IdempotencyHeaderName = 'Idempotency-Key' | 'x-idempotency-key';

/** For routes where a key is optional: both spellings, neither required. */
export const idempotencyHeaders = [
  registry.registerParameter(
    'IdempotencyKey',
    idempotencyKeyHeader.optional().openapi({
      param: {
        name: 'Idempotency-Key',
        in: 'header',
        description:
          'Idempotency key, ≤ 255 printable ASCII characters; scoped per merchant and route, kept 24 h. Same key + same body replays the stored answer; same key + different body → 409 DUPLICATE_IDEMPOTENCY_KEY.',
      },
      example: 'order-1001',
    }),
  ),
  registry.registerParameter(
    'XIdempotencyKey',
    idempotencyKeyHeader.optional().openapi({
      param: {
        name: 'x-idempotency-key',
        in: 'header',
        description: 'Same as `Idempotency-Key` (the seller Pix spelling).',
      },
      example: 'order-1001',
    }),
  ),
];

const otherSpelling = (canonical: IdempotencyHeaderName): IdempotencyHeaderName =>
  canonical === 'Idempotency-Key' ? 'x-idempotency-key' : 'Idempotency-Key';

/**
 * For routes that refuse a request without a key (api/idempotency/header.ts,
 * requireIdempotencyKey). The server takes either spelling, and OpenAPI cannot say "one of these
 * two headers is required". Marking both optional let generated clients compile without a key
 * and get 400, so the route's canonical spelling (the spec's: `Idempotency-Key` on P0,
 * `x-idempotency-key` on the application API) is marked required: a client that follows the
 * document always sends a key. The other spelling stays documented as accepted in its place
 * (a client sending only it is served, as the server accepts either); the operation's
 * description says the rule in words (`requiredIdempotencyRule`).
 */
export function requiredIdempotencyHeaders(canonical: IdempotencyHeaderName): z.ZodType[] {
  const other = otherSpelling(canonical);
  return [
    // A derived copy: header.ts made `idempotencyKeyHeader` before zod had `.openapi()`.
    idempotencyKeyHeader.meta({}).openapi({
      param: {
        name: canonical,
        in: 'header',
        required: true,
        description:
          `Required (or \`${other}\` in its place): without either → 400 IDEMPOTENCY_KEY_REQUIRED, before anything else of the request is read. ` +
          'Idempotency key, ≤ 255 printable ASCII characters; scoped per merchant and route, kept 24 h. Same key + same body replays the stored answer; same key + different body → 409 DUPLICATE_IDEMPOTENCY_KEY.',
      },
      example: 'order-1001',
    }),
    idempotencyKeyHeader.optional().openapi({
      param: {
        name: other,
        in: 'header',
        description: `Accepted in place of \`${canonical}\` (one of the two is required; OpenAPI cannot state "one of two headers", so only \`${canonical}\` is marked required). When both are sent, \`Idempotency-Key\` is used.`,
      },
      example: 'order-1001',
    }),
  ];
}

/** The sentence of an operation's description that states its key rule (with requiredIdempotencyHeaders). */
export function requiredIdempotencyRule(canonical: IdempotencyHeaderName): string {
  return `\`${canonical}\` is required (\`${otherSpelling(canonical)}\` is accepted in its place): without either → 400 IDEMPOTENCY_KEY_REQUIRED, before the body is read. `;
}

// --- request signature ----------------------------------------------------------------------

/**
 * The request signature (api/auth/requestSignature.ts, core/signatures/requestSignature.ts) as two
 * header parameters, not as security schemes: it is computed afresh for every request from its
 * method, path and body, so it is no credential a client configures once; and as a security
 * alternative beside the client credentials it made fuzzers and generators treat it as a second
 * way in (and fill it with random values, which are refused). `optional`: verified when sent
 * (seller routes, partner checkouts); `required`: payouts and receipts.
 */
const SIGNATURE_RULE =
  'The signed string is `{timestamp}.{METHOD}.{path}.{rawBody}`: timestamp as in `x-gateway-timestamp`, METHOD upper case, path without host or query string, raw body exactly as sent (empty for GET). ' +
  'The signature is its lower-case hex HMAC-SHA256 keyed with the client secret, valid within ±300 s of its timestamp and only once (a replay → 401 INVALID_SIGNATURE).';
const signatureParameter = (name: string, required: boolean) => {
  const timestamp = name.startsWith('GatewayTimestamp');
  const schema = z
    .string()
    .regex(timestamp ? SIGNATURE_TIMESTAMP_PATTERN : SIGNATURE_HEX_PATTERN)
    .meta({
      example: timestamp ? '1795327200000' : '9f2c1e0d4b6a8c7e5f3a1b2c4d6e8f0a1b3c5d7e9f1a2b4c6d8e0f1a3b5c7d9e',
    });
  return registry.registerParameter(
    name,
    (required ? schema : schema.optional()).openapi({
      param: {
        name: timestamp ? 'x-gateway-timestamp' : 'x-gateway-signature',
        in: 'header',
        required,
        description:
          (required
            ? 'Required: without a valid signature → 401 INVALID_SIGNATURE. '
            : 'Optional: when `x-gateway-timestamp` or `x-gateway-signature` is sent, both are verified and a wrong, expired or replayed signature → 401 INVALID_SIGNATURE. ') +
          (timestamp
            ? 'Unix time in milliseconds (UTC), within ±300 s of the server clock. '
            : 'Lower-case hex HMAC-SHA256 (64 characters). ') +
          SIGNATURE_RULE,
      },
    }),
  );
};

export const signatureHeaders = {
  /** Verified when sent: seller routes (added by registerSellerPath) and partner checkouts. */
  optional: [signatureParameter('GatewayTimestamp', false), signatureParameter('GatewaySignature', false)],
  /** Payouts and receipts. */
  required: [
    signatureParameter('GatewayTimestampRequired', true),
    signatureParameter('GatewaySignatureRequired', true),
  ],
};

// --- responses ------------------------------------------------------------------------------

/** The spec's pagination object (application API). */
export const Pagination = registry.register(
  'Pagination',
  z.object({ total: z.number().int(), limit: z.number().int(), offset: z.number().int(), hasMore: z.boolean() }),
);

export const ErrorEnvelope = registry.register(
  'ErrorEnvelope',
  z
    .object({
      error: z.object({
        code: z.enum(ERROR_CODE_LIST).describe('Machine-readable code; see the Errors table of the interface spec.'),
        message: z.string().describe('Human-readable message; never a stack or internal detail.'),
        details: z
          .record(z.string(), z.unknown())
          .nullable()
          .describe('Extra data, e.g. `fields: [{field, message}]` for VALIDATION_ERROR.'),
        traceId: z.string().describe('Same as the `x-trace-id` response header.'),
      }),
    })
    .describe('The error envelope every seller, health and callback route answers with.'),
);

/**
 * OpenAPI `links` from an answer to the operations that take what it names, by operationId:
 * `{ getSellerPixCharge: { id: '$response.body#/id' } }`. A create links to the reads of what it
 * created, so a client (and schemathesis's stateful phase) can follow them with the real id.
 */
export type ResponseLinks = Record<string, Record<string, string>>;

export function linksObject(links: ResponseLinks): NonNullable<ResponseConfig['links']> {
  return Object.fromEntries(
    Object.entries(links).map(([operationId, parameters]) => [
      operationId,
      {
        operationId,
        parameters,
        description: `${operationId} with ${Object.entries(parameters)
          .map(([name, value]) => `\`${name}\` = \`${value}\``)
          .join(', ')}.`,
      },
    ]),
  );
}

/**
 * A success response whose body is `schema`, with the `x-trace-id` header every response carries
 * (and `links` to the operations that take what it names, see linksObject).
 */
export function jsonResponse(
  description: string,
  schema: z.ZodType,
  extraHeaders: Record<string, { description: string; schema: { type: 'string' | 'integer'; enum?: string[] } }> = {},
  links?: ResponseLinks,
): ResponseConfig {
  return {
    description,
    headers: { 'x-trace-id': traceIdHeader.ref, ...extraHeaders },
    content: { 'application/json': { schema } },
    ...(links ? { links: linksObject(links) } : {}),
  };
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable',
  429: 'Too many requests',
  500: 'Internal error',
  502: 'Bad gateway',
  503: 'Service unavailable',
};

// Set by the rate limiter (api/middleware/rateLimit.ts) on a 429.
const rateLimitHeaders = {
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' as const } },
  RateLimit: { description: 'Remaining budget (IETF RateLimit header, draft 8).', schema: { type: 'string' as const } },
  'RateLimit-Policy': { description: 'The limit applied (IETF draft 8).', schema: { type: 'string' as const } },
};

// Set on a 503 whose cause passes by itself (api/temporal/temporalErrors.ts: a run whose workflow
// task failed refuses updates until a later task succeeds); absent, retry with backoff.
const unavailableHeaders = {
  'Retry-After': {
    description:
      'Seconds to wait before retrying with the same idempotency key; sent when the workflow run is recovering (its last workflow task failed, e.g. after a crash) and will take the request once it has.',
    schema: { type: 'integer' as const },
  },
};

/** The headers an error status carries besides x-trace-id. */
const errorStatusHeaders: Partial<Record<number, Record<string, unknown>>> = {
  429: rateLimitHeaders,
  503: unavailableHeaders,
};

const EXAMPLE_DETAILS: Partial<Record<ErrorCode, Record<string, unknown>>> = {
  VALIDATION_ERROR: { fields: [{ field: 'amountCents', message: 'Too small: expected number to be >0' }] },
  INSUFFICIENT_SCOPE: { requiredScope: 'charges:write' },
  TOO_MANY_STREAMS: { scope: 'checkout', maxOpenStreams: 3, retryAfterSeconds: 30 },
};

/**
 * Error responses by code, grouped by HTTP status, one named example per code:
 * `responses: { 201: …, ...errorResponses('VALIDATION_ERROR', 'NOT_FOUND') }`. INTERNAL_ERROR is
 * always added: any route can answer it.
 */
export function errorResponses(...codes: ErrorCode[]): Record<string, ResponseConfig> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set<ErrorCode>([...codes, 'INTERNAL_ERROR'])) {
    const { status } = ERROR_CODES[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, ResponseConfig> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const examples = Object.fromEntries(
      list.map((code) => [
        code,
        {
          summary: code,
          value: {
            error: {
              code,
              message: ERROR_CODES[code].message,
              details: EXAMPLE_DETAILS[code] ?? null,
              traceId: '4f1c2d9e-5b7a-4c1e-9a6d-2f8b3c4d5e6f',
            },
          },
        },
      ]),
    );
    out[String(status)] = {
      description: `${STATUS_TEXT[status] ?? 'Error'}: ${list.join(', ')}`,
      headers: { 'x-trace-id': traceIdHeader.ref, ...errorStatusHeaders[status] },
      content: { 'application/json': { schema: ErrorEnvelope, examples } },
    };
  }
  return out;
}

/** What a webhook receiver answers, and what the gateway makes of it (webhooks and callbacks alike). */
export const webhookReceiverResponses = {
  '200': { description: 'Received and processed (any 2xx): the delivery SUCCEEDED.' },
  '4XX': {
    description:
      'Refused (e.g. a signature that does not verify): the attempt failed and is retried, like any answer other than 2xx or none within 10 s.',
  },
  '5XX': { description: 'The receiver failed: the attempt failed and is retried.' },
};

/**
 * `callbacks` of an operation that registers a webhook URL: the events POSTed to it afterwards.
 * `url`: where the URL is in the request (`{$request.body#/url}`); `event`: the union schema of
 * the events it receives. Plain OpenAPI pointing at components of api/events/openapi.ts (the
 * event schemas and the delivery headers), so a registration documents its deliveries without
 * importing them; test/unit/openapiDocument.test.ts resolves every $ref.
 */
export function webhookCallbacks(url: string, event: 'WebhookEvent' | 'ChargeWebhookEvent', description: string) {
  const parameter = (name: string) => ({ $ref: `#/components/parameters/${name}` });
  return {
    events: {
      [url]: {
        post: {
          summary: 'An event delivered to the registered URL',
          tags: ['Webhook events'],
          description: `${description} The \`webhooks\` section has one entry per event type; answer 2xx within 10 s, only after processing (otherwise it is retried for 3 days).`,
          security: [],
          parameters: ['DeliverySignature', 'DeliveryEventId', 'DeliveryId', 'DeliveryAttempt'].map(parameter),
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${event}` } } },
          },
          responses: webhookReceiverResponses,
        },
      },
    },
  };
}

type PathRest = Omit<
  Parameters<typeof registry.registerPath>[0],
  'method' | 'path' | 'operationId' | 'summary' | 'tags' | 'security'
>;

/** Registers the application API's bearer-authenticated operations of one tag (one per resource folder). */
export function bearerPaths(tag: string) {
  return (
    method: 'get' | 'post' | 'put' | 'patch' | 'delete',
    route: string,
    operationId: string,
    summary: string,
    rest: PathRest,
  ): void => {
    registry.registerPath({
      method,
      path: route,
      operationId,
      summary,
      tags: [tag],
      security: security.bearer,
      ...rest,
    });
  };
}
