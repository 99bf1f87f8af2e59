/**
 * /auth/avatar: requireUser (the caller's session; answers 401 itself) → the JSON body (parsed
 * here too, so the router works whether it is mounted before or after the app's parser) → handler.
 */
import { Router, type RequestHandler, type Response } from 'express';
import { requireJsonContentType, routeJsonBody } from '../../middleware/jsonBody';
import type { ObjectStore } from '../../../core/storage/objectStore';
import { parseOrThrow } from '../../validation/validate';
import { confirmAvatarBody, presignAvatarBody } from './schema';
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

/** The caller, as `requireUser` left it. */
function userId(res: Response): string {
  const user = res.locals.user as { id?: unknown } | undefined;
  // requireUser answers 401 itself; reaching here without a user is a wiring mistake (500).
  if (!user || (typeof user.id !== 'string' && typeof user.id !== 'number'))
    throw new Error('avatar route reached without res.locals.user');
  return String(user.id);
}

function avatarHandlers(service: AvatarService) {
  const presign: RequestHandler = async (req, res) => {
    const body = parseOrThrow(presignAvatarBody, req.body);
    res.status(200).json(await service.presign(userId(res), body.contentType));
  };
  const confirm: RequestHandler = async (req, res) => {
    const body = parseOrThrow(confirmAvatarBody, req.body);
    res.status(200).json(await service.confirm(userId(res), body));
  };
  return { presign, confirm };
}
