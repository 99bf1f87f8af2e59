/**
 * The avatar and upload routes are documented (api/identity/avatar/openapi.ts, api/uploads/openapi.ts):
 * every route createAvatarRoutes mounts is in a valid document built with those modules, and
 * nothing else. (api/openapi/document.ts imports them once the app mounts the routes.)
 */
import { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { validate } from '@readme/openapi-parser';
import express from 'express';
import { createAvatarRoutes } from '../../api/identity/avatar';
import '../../api/identity/avatar/openapi';
import '../../api/uploads/openapi';
import { registry } from '../../api/openapi/registry';
import { LocalObjectStore } from '../../core/storage/localObjectStore';
import { listMountedRoutes } from '../support/mountedRoutes';

const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({
  openapi: '3.1.0',
  info: { title: 'avatars', version: '0' },
});

describe('avatar OpenAPI', () => {
  it('is valid OpenAPI 3.1', async () => {
    expect(await validate(JSON.parse(JSON.stringify(doc)))).toMatchObject({ valid: true });
  });

  it('documents exactly the routes createAvatarRoutes mounts with the local store', () => {
    const app = express();
    const store = new LocalObjectStore({
      dir: '/tmp/unused',
      publicBaseUrl: 'http://127.0.0.1:3000',
      signingSecret: 'x'.repeat(32),
    });
    app.use(createAvatarRoutes({ requireUser: (_req, _res, next) => next(), store, setAvatar: async () => undefined }));
    const mounted = listMountedRoutes(app).map((r) => `${r.method} ${r.path}`);
    const documented = Object.entries(doc.paths ?? {}).flatMap(([p, item]) =>
      Object.keys(item as object).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(mounted.sort()).toEqual(documented.sort());
    expect(mounted).toEqual(
      expect.arrayContaining([
        'POST /auth/avatar/presign',
        'POST /auth/avatar/confirm',
        'PUT /uploads/{scope}/{owner}/{name}',
        'GET /uploads/{scope}/{owner}/{name}',
      ]),
    );
  });

  it('limits presign to PNG, JPEG and WebP and answers maxBytes 2097152', () => {
    const schemas = doc.components?.schemas as Record<string, any>;
    expect(schemas.PresignAvatarRequest.properties.contentType.enum).toEqual(['image/png', 'image/jpeg', 'image/webp']);
    expect(schemas.PresignAvatarResult.properties.maxBytes.enum).toEqual([2_097_152]);
    // Free-text request strings carry the no-control-characters pattern, like every other route's.
    expect(schemas.ConfirmAvatarRequest.properties.key.pattern).toBeDefined();
    expect(schemas.ConfirmAvatarRequest.properties.url.pattern).toBeDefined();
  });
});
