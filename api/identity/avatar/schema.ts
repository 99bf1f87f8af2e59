import { z } from 'zod';
import { text } from '../../validation/text';

export const AVATAR_CONTENT_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;
export type AvatarContentType = (typeof AVATAR_CONTENT_TYPES)[number];
/** 2 MiB. */
export const AVATAR_MAX_BYTES = 2_097_152;
/** How long a presigned upload URL stays valid. */
export const AVATAR_UPLOAD_TTL_SECONDS = 600;

export const presignAvatarBody = z
  .object({
    contentType: z
      .enum(AVATAR_CONTENT_TYPES)
      .meta({ description: 'The type of the file you will upload.', example: 'image/png' }),
  })
  .strict();

export const confirmAvatarBody = z
  .object({
    key: text().min(1).max(200).meta({
      description: 'The `key` from the presign answer.',
      example: 'avatars/42/6f1c2d9e-5b7a-4c1e-9a6d-2f8b3c4d5e6f',
    }),
    url: text()
      .max(2048)
      .optional()
      .meta({ description: 'Optional: the public URL you expect; must equal the store URL of `key`.' }),
  })
  .strict();

export const presignAvatarResult = z.object({
  uploadUrl: z.string().describe('PUT the file here, with `headers`, before `expiresAt`.'),
  key: z.string().describe('`avatars/<your user id>/<uuid>`; send it to /auth/avatar/confirm after the upload.'),
  method: z.literal('PUT'),
  headers: z
    .record(z.string(), z.string())
    .describe('Send exactly these headers with the PUT (the URL is signed for them).'),
  expiresAt: z.iso.datetime().describe('The upload URL is refused from then on.'),
  maxBytes: z.literal(AVATAR_MAX_BYTES),
});

export const confirmAvatarResult = z.object({ avatarUrl: z.string().describe('Public URL of the new avatar.') });

export type PresignAvatarResult = z.infer<typeof presignAvatarResult>;
