/**
 * Avatars over real HTTP: the avatar routes and the local object store mounted
 * as createAvatarRoutes is meant to be mounted (before the app's JSON parser), a real PNG PUT to
 * the presigned URL and confirmed; a text file declared as PNG, another user's key, a body over
 * 2 MB, a tampered, expired or mistyped upload are refused in the error envelope.
 *
 * `requireUser` here is a stand-in (header x-test-user) until the users module's login lands;
 * `setAvatar` records what would be persisted on the user.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import QRCode from 'qrcode';
import { createAvatarRoutes } from '../../api/identity/avatar';
import { ApiError } from '../../api/errors/apiError';
import { errorHandler, notFoundHandler } from '../../api/errors/errorHandler';
import { jsonBody, requireJsonContentType } from '../../api/middleware/jsonBody';
import { traceId } from '../../api/middleware/traceId';
import { testLogger } from '../support/testLogs';
import { LocalObjectStore } from '../../core/storage/localObjectStore';

jest.setTimeout(120_000);

const MAX = 2_097_152;
let server: http.Server;
let base: string;
let dir: string;
let clockOffsetMs = 0;
const saved: { userId: string; key: string; url: string }[] = [];

const requireUser: RequestHandler = (req, res, next) => {
  const id = req.header('x-test-user');
  if (!id) return next(new ApiError(401, 'UNAUTHENTICATED', 'sign in first'));
  res.locals.user = { id };
  next();
};

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'avatar-uploads-'));
  server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const store = new LocalObjectStore({
    dir,
    publicBaseUrl: base,
    signingSecret: 'integration-upload-secret-0123456789abcdef',
    now: () => Date.now() + clockOffsetMs,
  });
  const app = express();
  app.use(traceId);
  app.use(
    createAvatarRoutes({
      requireUser,
      store,
      setAvatar: async (userId, avatar) => {
        saved.push({ userId, ...avatar });
      },
    }),
  );
  // What api/app.ts runs for every other route: these must not see an upload's body.
  app.use(requireJsonContentType);
  app.use(jsonBody());
  app.use(notFoundHandler);
  app.use(errorHandler(testLogger('avatar-test')));
  server.on('request', app);
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  saved.length = 0;
  clockOffsetMs = 0;
});

async function post(route: string, user: string | null, body: unknown) {
  const res = await fetch(`${base}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(user ? { 'x-test-user': user } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function presign(user: string, contentType = 'image/png') {
  const res = await post('/auth/avatar/presign', user, { contentType });
  expect(res.status).toBe(200);
  return res.body as {
    uploadUrl: string;
    key: string;
    method: string;
    headers: Record<string, string>;
    expiresAt: string;
    maxBytes: number;
  };
}

async function upload(
  grant: { uploadUrl: string; headers: Record<string, string> },
  body: Buffer,
  headers = grant.headers,
) {
  const res = await fetch(grant.uploadUrl, { method: 'PUT', headers, body });
  return { status: res.status, body: (await res.json()) as any };
}

/**
 * A PUT with node:http, so the body can be streamed without a Content-Length. The server answers
 * 413 and closes before the whole body is read, so a write error after the answer is expected.
 */
function rawPut(
  url: string,
  headers: Record<string, string>,
  chunks: Buffer[],
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request(url, { method: 'PUT', headers }, (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    req.on('error', (err) => {
      if (!answered) reject(err);
    });
    const writeNext = (i: number): void => {
      if (answered || req.destroyed) return;
      if (i === chunks.length) return void req.end();
      if (req.write(chunks[i])) setImmediate(() => writeNext(i + 1));
      else req.once('drain', () => writeNext(i + 1));
    };
    writeNext(0);
  });
}

describe('avatars over HTTP with the local store', () => {
  it('presigns, takes a real PNG by PUT, confirms it, and serves it back with its type and nosniff', async () => {
    const png = await QRCode.toBuffer('avatar of user-1');
    const grant = await presign('user-1');
    expect(grant).toMatchObject({ method: 'PUT', maxBytes: MAX, headers: { 'Content-Type': 'image/png' } });
    expect(grant.key).toMatch(/^avatars\/user-1\/[0-9a-f-]{36}$/);
    expect(grant.uploadUrl.startsWith(`${base}/uploads/${grant.key}?`)).toBe(true);
    expect(Date.parse(grant.expiresAt) - Date.now()).toBeGreaterThan(500_000);

    expect(await upload(grant, png)).toEqual({ status: 200, body: { key: grant.key, size: png.length } });
    const avatarUrl = `${base}/uploads/${grant.key}`;
    expect(await post('/auth/avatar/confirm', 'user-1', { key: grant.key, url: avatarUrl })).toEqual({
      status: 200,
      body: { avatarUrl },
    });
    expect(saved).toEqual([{ userId: 'user-1', key: grant.key, url: avatarUrl }]);

    const res = await fetch(avatarUrl);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await res.arrayBuffer()).equals(png)).toBe(true);

    // The URL is still valid, but the checked avatar cannot be replaced through it.
    expect(await upload(grant, Buffer.from('<html>not an image</html>'))).toMatchObject({
      status: 409,
      body: { error: { code: 'UPLOAD_ALREADY_EXISTS' } },
    });
    expect(Buffer.from(await (await fetch(avatarUrl)).arrayBuffer()).equals(png)).toBe(true);
  });

  it('refuses a text file uploaded as image/png at confirm (INVALID_AVATAR) and deletes it', async () => {
    const grant = await presign('user-1');
    expect(
      (await upload(grant, Buffer.from('definitely not an image, just text renamed to avatar.png\n'))).status,
    ).toBe(200);
    const res = await post('/auth/avatar/confirm', 'user-1', { key: grant.key });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_AVATAR', traceId: expect.any(String) });
    expect(saved).toEqual([]);
    expect((await fetch(`${base}/uploads/${grant.key}`)).status).toBe(404);
  });

  it("refuses another user's key with 403 AVATAR_KEY_FORBIDDEN, and leaves the file alone", async () => {
    const grant = await presign('user-1');
    expect((await upload(grant, await QRCode.toBuffer('mine'))).status).toBe(200);
    const res = await post('/auth/avatar/confirm', 'user-2', { key: grant.key });
    expect(res).toMatchObject({ status: 403, body: { error: { code: 'AVATAR_KEY_FORBIDDEN' } } });
    expect(saved).toEqual([]);
    expect((await fetch(`${base}/uploads/${grant.key}`)).status).toBe(200);
  });

  it('refuses a body over 2 MB with 413, declared or streamed, and stores nothing', async () => {
    const grant = await presign('user-1');
    const declared = await rawPut(grant.uploadUrl, { 'content-type': 'image/png', 'content-length': String(MAX + 1) }, [
      Buffer.alloc(MAX + 1, 0x41),
    ]);
    expect(declared).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE' } } });
    // No Content-Length: the limit is enforced while streaming.
    const chunks = Array.from({ length: 40 }, () => Buffer.alloc(64 * 1024, 0x41)); // 2.5 MB
    const streamed = await rawPut(
      grant.uploadUrl,
      { 'content-type': 'image/png', 'transfer-encoding': 'chunked' },
      chunks,
    );
    expect(streamed).toMatchObject({ status: 413, body: { error: { code: 'PAYLOAD_TOO_LARGE' } } });
    expect(await post('/auth/avatar/confirm', 'user-1', { key: grant.key })).toMatchObject({
      status: 404,
      body: { error: { code: 'UPLOAD_NOT_FOUND' } },
    });
    expect(fs.readdirSync(path.join(dir, '.tmp'))).toEqual([]);
    // Exactly 2 MB is accepted by the store.
    expect((await upload(grant, Buffer.alloc(MAX, 0x41))).status).toBe(200);
  });

  it('refuses tampered, expired and mistyped uploads', async () => {
    const png = await QRCode.toBuffer('x');
    const grant = await presign('user-1');
    const other = new URL(grant.uploadUrl);
    other.searchParams.set('maxBytes', String(MAX * 10));
    expect((await upload({ ...grant, uploadUrl: other.toString() }, png)).body.error.code).toBe('UPLOAD_URL_INVALID');
    const otherKey = grant.uploadUrl.replace('/avatars/user-1/', '/avatars/user-2/');
    expect((await upload({ ...grant, uploadUrl: otherKey }, png)).body.error.code).toBe('UPLOAD_URL_INVALID');
    expect(await upload(grant, png, { 'Content-Type': 'text/html' })).toMatchObject({
      status: 415,
      body: { error: { code: 'UNSUPPORTED_MEDIA_TYPE' } },
    });
    clockOffsetMs = 601_000;
    expect(await upload(grant, png)).toMatchObject({ status: 403, body: { error: { code: 'UPLOAD_URL_EXPIRED' } } });
  });

  it('validates presign and confirm requests', async () => {
    expect(await post('/auth/avatar/presign', null, { contentType: 'image/png' })).toMatchObject({ status: 401 });
    expect(await post('/auth/avatar/presign', 'user-1', { contentType: 'image/gif' })).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_ERROR' } },
    });
    expect(await post('/auth/avatar/presign', 'user-1', { contentType: 'image/svg+xml' })).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_ERROR' } },
    });
    for (const key of [
      'avatars/user-1/../../etc/passwd',
      '/etc/passwd',
      'avatars/user-1/not-a-uuid',
      'other/user-1/6f1c2d9e-5b7a-4c1e-9a6d-2f8b3c4d5e6f',
    ]) {
      expect(await post('/auth/avatar/confirm', 'user-1', { key })).toMatchObject({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR' } },
      });
    }
    const grant = await presign('user-1');
    expect((await upload(grant, await QRCode.toBuffer('y'))).status).toBe(200);
    expect(
      await post('/auth/avatar/confirm', 'user-1', { key: grant.key, url: 'https://evil.example.com/a.png' }),
    ).toMatchObject({
      status: 400,
      body: { error: { code: 'VALIDATION_ERROR', details: { fields: [{ field: 'url' }] } } },
    });
    expect(saved).toEqual([]);
  });

  it('answers 404 in the envelope for reads outside the store', async () => {
    for (const p of [
      '/uploads/avatars/user-1/..%2f..%2fetc',
      '/uploads/avatars/..%2F..%2F/x',
      '/uploads/avatars/user-1/missing',
      '/uploads/.tmp/a/b',
    ]) {
      const res = await fetch(`${base}${p}`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as any).error.code).toBe('NOT_FOUND');
    }
  });
});
