import type { RequestHandler, Response } from 'express';
import { parseOrThrow } from '../../validation/validate';
import { confirmAvatarBody, presignAvatarBody } from './schema';
import type { AvatarService } from './service';

/** The caller, as `requireUser` left it. */
function userId(res: Response): string {
  const user = res.locals.user as { id?: unknown } | undefined;
  // requireUser answers 401 itself; reaching here without a user is a wiring mistake (500).
  if (!user || (typeof user.id !== 'string' && typeof user.id !== 'number'))
    throw new Error('avatar route reached without res.locals.user');
  return String(user.id);
}

export function avatarHandlers(service: AvatarService) {
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
