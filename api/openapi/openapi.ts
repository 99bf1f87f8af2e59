/** The documentation routes document themselves too (router.ts), so the coverage test sees them. */
import { z } from 'zod';
import { errorResponses, registry, security } from './registry';

registry.registerPath({
  method: 'get',
  path: '/openapi.json',
  operationId: 'openApiDocument',
  tags: ['Documentation'],
  summary: 'This OpenAPI 3.1 document',
  description:
    'Generated from the same zod schemas that validate the requests, so it cannot drift from them; the routes it lists are exactly the ones the server mounts (a test checks both ways). Public, no credentials.',
  security: security.none,
  responses: {
    200: {
      description: 'The document.',
      content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
    },
    ...errorResponses('RATE_LIMITED'),
  },
});

registry.registerPath({
  method: 'get',
  path: '/docs',
  operationId: 'apiDocsPage',
  tags: ['Documentation'],
  summary: 'Readable API documentation (Swagger UI, self-contained)',
  description:
    'A Swagger UI page rendering GET /openapi.json, with its scripts and styles served by this server (no CDN), so it works offline. Public, no credentials.',
  security: security.none,
  responses: {
    200: { description: 'An HTML page rendering /openapi.json.', content: { 'text/html': { schema: z.string() } } },
    ...errorResponses('RATE_LIMITED'),
  },
});
