/** OpenAPI for the health routes (router.ts). Public: no credentials; /ready is rate limited per IP, /healthz is not. */
import { z } from 'zod';
import { errorResponses, jsonResponse, registry, security } from '../openapi/registry';

const BuildInfo = registry.register(
  'BuildInfo',
  z.object({
    gitSha: z.string().nullable(),
    buildId: z.string().nullable(),
    builtAt: z.string().nullable(),
    version: z.string().meta({ example: '0.1.0' }),
    source: z.enum(['env', 'git', 'unknown', 'hidden']).meta({
      description:
        '`hidden` (gitSha, buildId and builtAt null) unless the server sets EXPOSE_BUILD_INFO=true; then `env` when GIT_SHA is set, else read from the git checkout, else unknown.',
    }),
  }),
);

export const healthzResponse = z.object({ ok: z.literal(true), timestamp: z.iso.datetime(), buildInfo: BuildInfo });

export const readyResponse = z.object({
  ok: z.boolean().meta({ description: 'True when the database and Temporal are reachable.' }),
  database: z.boolean(),
  temporal: z.boolean(),
  smtp: z.boolean().meta({
    description:
      'True when the SMTP server of SMTP_URL accepts a connection and login (probed with a 2 s timeout). Reported only: mail is queued durably, so SMTP does not make /ready fail.',
  }),
  smtpError: z.string().nullable().meta({
    description:
      "Why SMTP is not usable, in the gateway's words (never the server URL or login); null when `smtp` is true.",
    example: 'SMTP_UNREACHABLE: could not connect to the SMTP server',
  }),
  timestamp: z.iso.datetime(),
  buildInfo: BuildInfo,
  error: z
    .string()
    .optional()
    .meta({ description: 'What is unreachable (503 only).', example: 'temporal unreachable' }),
});
const Readiness = registry.register('Readiness', readyResponse);

registry.registerPath({
  method: 'get',
  path: '/healthz',
  operationId: 'healthz',
  tags: ['Health'],
  summary: 'Liveness',
  description:
    'Answers 200 while the process serves HTTP; it checks no dependency (GET /ready does). Exempt from the rate limit, for orchestrators.',
  security: security.none,
  responses: {
    200: jsonResponse('The process is up.', registry.register('Health', healthzResponse)),
    ...errorResponses(),
  },
});

registry.registerPath({
  method: 'get',
  path: '/ready',
  operationId: 'ready',
  tags: ['Health'],
  summary: 'Readiness: database and Temporal reachable',
  description:
    'Probes the database, Temporal and the SMTP server at most once a second (answers within that second share one probe). `ok` depends on the database and Temporal only. Rate limited per IP.',
  security: security.none,
  responses: {
    200: jsonResponse('Ready.', Readiness),
    503: jsonResponse('Not ready; `error` says what is unreachable.', Readiness),
    ...errorResponses('RATE_LIMITED'),
  },
});
