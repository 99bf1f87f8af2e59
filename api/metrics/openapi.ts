/** OpenAPI for GET /metrics and GET /metrics/perf-db (router.ts); access rule in access.ts. */
import { z } from 'zod';
import { errorResponses, jsonResponse, registry, security } from '../openapi/registry';

export const perfDbResponse = z.object({
  pool: z
    .object({
      size: z.number().int(),
      available: z.number().int(),
      using: z.number().int(),
      opening: z.number().int(),
      waiting: z.number().int(),
    })
    .meta({
      description:
        "This API process's database connection pool: connections counted (size = available + using + opening), idle ones, in use, being opened, and requests waiting for one.",
    }),
  slowestQueries: z
    .array(
      z.object({
        query: z.string().meta({
          description:
            'Statement text as normalised by PostgreSQL (constants replaced by $1, $2…), at most 2000 characters.',
        }),
        calls: z.number().int(),
        meanMs: z.number(),
        totalMs: z.number(),
      }),
    )
    .max(10)
    .nullable()
    .meta({
      description:
        'Top 10 statements of this database by mean execution time, from pg_stat_statements; null when the extension is not enabled.',
    }),
  note: z
    .string()
    .optional()
    .meta({ description: 'Present when slowestQueries is null: why, and how to enable pg_stat_statements.' }),
});

const access =
  'Reveals platform-wide business volumes. When the server sets METRICS_TOKEN, `Authorization: Bearer <METRICS_TOKEN>` is required (401 INVALID_METRICS_TOKEN otherwise); ' +
  'without METRICS_TOKEN the route is open in development and test and answers 404 in production.';

registry.registerPath({
  method: 'get',
  path: '/metrics',
  operationId: 'metrics',
  tags: ['Health'],
  summary: 'Prometheus metrics (text exposition format)',
  description:
    `${access} Series: gateway_http_requests_total and gateway_http_request_duration_seconds (method, route template such as /v1/checkouts/:id or \`unmatched\`, status); ` +
    'gateway_charges (status, method), gateway_payout_items and gateway_withdrawals (status), gateway_ledger_balance_cents and gateway_ledger_accounts (kind), ' +
    'gateway_outbox_pending_events, gateway_outbox_oldest_pending_age_seconds, gateway_webhook_deliveries (status), gateway_temporal_client_errors_total (operation, error), ' +
    'and process metrics prefixed gateway_. The business gauges are read from PostgreSQL at most every 5 s. No label carries a merchant id, secret or personal data.',
  security: security.metrics,
  responses: {
    200: {
      description: 'Prometheus text format 0.0.4.',
      content: {
        'text/plain': {
          schema: z.string().meta({
            example:
              '# HELP gateway_charges Charges by status and method\n# TYPE gateway_charges gauge\ngateway_charges{status="PAID",method="PIX"} 12\n',
          }),
        },
      },
    },
    ...errorResponses('INVALID_METRICS_TOKEN', 'NOT_FOUND', 'RATE_LIMITED'),
  },
});

registry.registerPath({
  method: 'get',
  path: '/metrics/perf-db',
  operationId: 'metricsPerfDb',
  tags: ['Health'],
  summary: 'Database performance: pool usage and slowest queries',
  description: access,
  security: security.metrics,
  responses: {
    200: jsonResponse('Pool and slowest statements.', registry.register('PerfDb', perfDbResponse)),
    ...errorResponses('INVALID_METRICS_TOKEN', 'NOT_FOUND', 'RATE_LIMITED'),
  },
});
