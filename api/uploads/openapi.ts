/** OpenAPI for the local object store's routes (router.ts), mounted when S3 is not configured. */
import { z } from 'zod';
import { errorResponses, registry, security } from '../openapi/registry';

const segment = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/);
const params = z.object({
  scope: segment.meta({ description: 'First key segment, e.g. `avatars`.', example: 'avatars' }),
  owner: segment.meta({ description: 'Second key segment, e.g. the user id.', example: '42' }),
  name: segment.meta({
    description: 'Third key segment, e.g. a UUID.',
    example: '6f1c2d9e-5b7a-4c1e-9a6d-2f8b3c4d5e6f',
  }),
});
const signedQuery = z.object({
  expires: z
    .string()
    .regex(/^[0-9]{1,15}$/)
    .meta({ description: 'Unix time in seconds after which the URL is refused.' }),
  contentType: z.string().meta({
    description: 'The media type the URL was signed for; the request Content-Type must equal it.',
    example: 'image/png',
  }),
  maxBytes: z
    .string()
    .regex(/^[0-9]{1,15}$/)
    .meta({ description: 'Largest body the URL accepts, in bytes.' }),
  signature: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .meta({ description: 'Lower-case hex HMAC-SHA256 of the other values, by the server.' }),
});
const binary = { schema: z.string().meta({ format: 'binary' }) };

registry.registerPath({
  method: 'put',
  path: '/uploads/{scope}/{owner}/{name}',
  operationId: 'uploadObject',
  tags: ['Uploads'],
  summary: 'Upload a file to a presigned URL',
  description:
    'Use the `uploadUrl` and `headers` from a presign call (e.g. `POST /auth/avatar/presign`) exactly as given: the signed query string is the only authorisation. ' +
    'Content-Type must be the signed one; a body over `maxBytes` is refused with 413 and the connection is closed. Each URL stores one file: a second upload to it is refused with 409 (ask for a new URL).',
  security: security.none,
  request: {
    params,
    query: signedQuery,
    body: { required: true, content: { 'image/png': binary, 'image/jpeg': binary, 'image/webp': binary } },
  },
  responses: {
    200: {
      description: 'Stored.',
      content: { 'application/json': { schema: z.object({ key: z.string(), size: z.number().int() }) } },
    },
    ...errorResponses(
      'VALIDATION_ERROR',
      'UPLOAD_URL_INVALID',
      'UPLOAD_URL_EXPIRED',
      'UPLOAD_ALREADY_EXISTS',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'RATE_LIMITED',
    ),
  },
});

registry.registerPath({
  method: 'get',
  path: '/uploads/{scope}/{owner}/{name}',
  operationId: 'readUpload',
  tags: ['Uploads'],
  summary: 'Read an uploaded file (public)',
  description:
    'Served with the Content-Type it was uploaded with, `X-Content-Type-Options: nosniff` and a sandboxing Content-Security-Policy.',
  security: security.none,
  request: { params },
  responses: {
    200: { description: 'The file.', content: { 'image/png': binary, 'image/jpeg': binary, 'image/webp': binary } },
    ...errorResponses('NOT_FOUND', 'RATE_LIMITED'),
  },
});
