/**
 * Avatars by presigned upload: presign hands out a PUT URL for a fresh key under the caller's
 * own prefix (avatars/<userId>/<uuid>); confirm checks what was uploaded there (the caller's
 * prefix, size, image by magic bytes), deletes it if refused, and only then records it on the
 * user through `setAvatar`. The client's declared type is never trusted.
 */
import crypto from 'node:crypto';
import { ApiError, errors } from '../../errors/apiError';
import { isValidKeySegment, isValidObjectKey, type ObjectStore } from '../../../core/storage/objectStore';
import { detectImageType, IMAGE_SNIFF_BYTES } from '../../../core/storage/imageType';
import {
  AVATAR_MAX_BYTES,
  AVATAR_UPLOAD_TTL_SECONDS,
  type AvatarContentType,
  type PresignAvatarResult,
} from './schema';

/** Persists the avatar on the user (the users module provides it). */
export type SetAvatar = (userId: string, avatar: { key: string; url: string }) => Promise<void>;

export interface AvatarServiceDeps {
  store: ObjectStore;
  setAvatar: SetAvatar;
  /** Clock in ms, replaceable in tests. */
  now?: () => number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const avatarErrors = {
  /**
   * 403, not 404: the key's prefix says whose it is, so refusing it reveals nothing, and a
   * client that sends another user's key has a bug worth naming. Checked before the store is
   * asked, so the answer never depends on whether that object exists.
   */
  forbidden: () => new ApiError(403, 'AVATAR_KEY_FORBIDDEN', 'this upload key belongs to another user'),
  notUploaded: () =>
    new ApiError(404, 'UPLOAD_NOT_FOUND', 'nothing was uploaded under this key; PUT the file to uploadUrl first'),
  invalid: (reason: string) => new ApiError(400, 'INVALID_AVATAR', `${reason}; the upload was deleted`),
};

function ownPrefix(userId: string): string {
  // A user id that cannot be a key segment is the users module's bug, not the caller's: 500.
  if (!isValidKeySegment(userId)) throw new Error('user id cannot be used in an object key');
  return `avatars/${userId}/`;
}

export class AvatarService {
  private readonly now: () => number;

  constructor(private readonly deps: AvatarServiceDeps) {
    this.now = deps.now ?? Date.now;
  }

  async presign(userId: string, contentType: AvatarContentType): Promise<PresignAvatarResult> {
    const key = `${ownPrefix(userId)}${crypto.randomUUID()}`;
    const issuedAt = this.now();
    const put = await this.deps.store.presignPut(key, contentType, AVATAR_MAX_BYTES, AVATAR_UPLOAD_TTL_SECONDS);
    return {
      uploadUrl: put.url,
      key,
      method: 'PUT',
      headers: put.headers,
      // Whole seconds, like the URL's own expiry; never later than the store's.
      expiresAt: new Date(Math.floor(issuedAt / 1000) * 1000 + AVATAR_UPLOAD_TTL_SECONDS * 1000).toISOString(),
      maxBytes: AVATAR_MAX_BYTES,
    };
  }

  async confirm(userId: string, input: { key: string; url?: string }): Promise<{ avatarUrl: string }> {
    const prefix = ownPrefix(userId);
    const { key } = input;
    if (!key.startsWith(prefix)) {
      if (isValidObjectKey(key) && key.startsWith('avatars/')) throw avatarErrors.forbidden();
      throw errors.validation('key must be the key from /auth/avatar/presign', {
        fields: [{ field: 'key', message: 'must be avatars/<your user id>/<uuid>' }],
      });
    }
    if (!UUID.test(key.slice(prefix.length))) {
      throw errors.validation('key must be the key from /auth/avatar/presign', {
        fields: [{ field: 'key', message: 'must be avatars/<your user id>/<uuid>' }],
      });
    }
    const url = this.deps.store.publicUrl(key);
    if (input.url !== undefined && input.url !== url) {
      throw errors.validation('url is not the URL of this key', {
        fields: [{ field: 'url', message: 'must equal the store URL of key (or be left out)' }],
      });
    }

    const head = await this.deps.store.head(key);
    if (!head) throw avatarErrors.notUploaded();
    if (head.size > AVATAR_MAX_BYTES) return this.refuse(key, `the file is larger than ${AVATAR_MAX_BYTES} bytes`);
    const start = await this.deps.store.readStart(key, IMAGE_SNIFF_BYTES);
    if (!start) throw avatarErrors.notUploaded();
    if (!detectImageType(start)) return this.refuse(key, 'the file is not a PNG, JPEG or WebP image');

    await this.deps.setAvatar(userId, { key, url });
    return { avatarUrl: url };
  }

  private async refuse(key: string, reason: string): Promise<never> {
    await this.deps.store.delete(key);
    throw avatarErrors.invalid(reason);
  }
}
