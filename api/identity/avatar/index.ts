/**
 * Everything avatars need, as one router for `app.use(createAvatarRoutes({...}))`:
 * POST /auth/avatar/presign and /auth/avatar/confirm, plus PUT/GET /uploads/… when the store is
 * the local one (an S3 store is uploaded to and read from directly).
 *
 * Mount it BEFORE the app-wide `requireJsonContentType` and `jsonBody` (api/middleware/jsonBody.ts):
 * an upload's body is an image, which those would refuse or try to parse as JSON. The avatar
 * routes check and parse their JSON body themselves. Document it by importing
 * `./openapi` and `../../uploads/openapi` in api/openapi/document.ts.
 */
import { Router } from 'express';
import { LocalObjectStore } from '../../../core/storage/localObjectStore';
import { uploadsRouter } from '../../uploads/router';
import { avatarRouter, type AvatarRouterDeps } from './router';

export type AvatarRoutesDeps = AvatarRouterDeps;

export function createAvatarRoutes(deps: AvatarRoutesDeps): Router {
  const router = Router();
  if (deps.store instanceof LocalObjectStore) router.use(uploadsRouter(deps.store));
  router.use(avatarRouter(deps));
  return router;
}

export { AVATAR_MAX_BYTES, AVATAR_CONTENT_TYPES } from './schema';
export type { SetAvatar } from './service';
