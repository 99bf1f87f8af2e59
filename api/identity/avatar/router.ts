/**
 * /auth/avatar: requireUser (the caller's session; answers 401 itself) → the JSON body (parsed
 * here too, so the router works whether it is mounted before or after the app's parser) → handler.
 */
import { Router, type RequestHandler } from 'express';
import { requireJsonContentType, routeJsonBody } from '../../middleware/jsonBody';
import type { ObjectStore } from '../../../core/storage/objectStore';
import { avatarHandlers } from './handler';
import { AvatarService, type SetAvatar } from './service';

export interface AvatarRouterDeps {
  /** Sets `res.locals.user = { id }` or answers 401. */
  requireUser: RequestHandler;
  store: ObjectStore;
  setAvatar: SetAvatar;
  /** Clock in ms, replaceable in tests. */
  now?: () => number;
}

export const AVATAR_PATH = '/auth/avatar';

export function avatarRouter(deps: AvatarRouterDeps): Router {
  const h = avatarHandlers(new AvatarService({ store: deps.store, setAvatar: deps.setAvatar, now: deps.now }));
  // A body already parsed by the app's parser is left as it is (body-parser skips it).
  const parseBody = routeJsonBody({ largeLimit: '100kb', isLarge: () => false });
  const router = Router();
  router.post(`${AVATAR_PATH}/presign`, deps.requireUser, requireJsonContentType, parseBody, h.presign);
  router.post(`${AVATAR_PATH}/confirm`, deps.requireUser, requireJsonContentType, parseBody, h.confirm);
  return router;
}
