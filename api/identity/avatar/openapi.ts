/** OpenAPI for /auth/avatar (router.ts), from the schemas that validate it (schema.ts). */
import { errorResponses, jsonResponse, registry, security } from '../../openapi/registry';
import {
  AVATAR_MAX_BYTES,
  AVATAR_UPLOAD_TTL_SECONDS,
  confirmAvatarBody,
  confirmAvatarResult,
  presignAvatarBody,
  presignAvatarResult,
} from './schema';

const userBearer = security.bearer;

// Registered as derived schemas (.describe): a schema built before the registry extended zod
// (schema.ts is imported by the router first) has no .openapi(), which register needs.
const PresignAvatarRequest = registry.register(
  'PresignAvatarRequest',
  presignAvatarBody.describe('The type of the avatar you will upload.'),
);
const PresignAvatarResult = registry.register(
  'PresignAvatarResult',
  presignAvatarResult.describe('Where and how to upload the file.'),
);
const ConfirmAvatarRequest = registry.register(
  'ConfirmAvatarRequest',
  confirmAvatarBody.describe('The uploaded file to make your avatar.'),
);
const ConfirmAvatarResult = registry.register('ConfirmAvatarResult', confirmAvatarResult.describe('The new avatar.'));

const shared = [
  'VALIDATION_ERROR',
  'AUTHENTICATION_REQUIRED',
  'INVALID_ACCESS_TOKEN',
  'PAYLOAD_TOO_LARGE',
  'RATE_LIMITED',
] as const;

registry.registerPath({
  method: 'post',
  path: '/auth/avatar/presign',
  operationId: 'presignAvatarUpload',
  tags: ['Avatars'],
  summary: 'Get a URL to upload a new avatar to',
  description:
    `Answers a PUT URL valid for ${AVATAR_UPLOAD_TTL_SECONDS} s for a PNG, JPEG or WebP file of at most ${AVATAR_MAX_BYTES} bytes. ` +
    'Upload the file there with exactly the `headers` given, then call `POST /auth/avatar/confirm` with the `key`. Nothing changes on the user until then.',
  security: userBearer,
  request: { body: { required: true, content: { 'application/json': { schema: PresignAvatarRequest } } } },
  responses: {
    200: jsonResponse('Where and how to upload.', PresignAvatarResult),
    ...errorResponses(...shared),
  },
});

registry.registerPath({
  method: 'post',
  path: '/auth/avatar/confirm',
  operationId: 'confirmAvatar',
  tags: ['Avatars'],
  summary: 'Make an uploaded file your avatar',
  description:
    'Checks the file uploaded under `key`: it must be under your own prefix (`avatars/<your id>/`, else 403 AVATAR_KEY_FORBIDDEN), exist (else 404 UPLOAD_NOT_FOUND), ' +
    `be at most ${AVATAR_MAX_BYTES} bytes and be a PNG, JPEG or WebP image by its content, whatever its declared type (else 400 INVALID_AVATAR, and the file is deleted). ` +
    'Then it becomes your avatar.',
  security: userBearer,
  request: { body: { required: true, content: { 'application/json': { schema: ConfirmAvatarRequest } } } },
  responses: {
    200: jsonResponse('The avatar was set.', ConfirmAvatarResult),
    ...errorResponses(...shared, 'INVALID_AVATAR', 'AVATAR_KEY_FORBIDDEN', 'UPLOAD_NOT_FOUND'),
  },
});
