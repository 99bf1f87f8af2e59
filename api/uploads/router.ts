/**
 * The local object store over HTTP (core/storage/localObjectStore.ts), mounted only when S3 is
 * not configured. Same contract as an S3 presigned URL:
 *   PUT /uploads/<scope>/<owner>/<name>?expires&contentType&maxBytes&signature — the signed
 *     URL is the only authorisation; the body is streamed to disk and capped at maxBytes.
 *   GET /uploads/<scope>/<owner>/<name> — public, with the stored Content-Type and nosniff.
 * It reads the raw body, so it must be mounted before any JSON body parser (see api/identity/avatar/index.ts).
 */
import { Router, type RequestHandler } from 'express';
import { pipeline } from 'node:stream/promises';
import { ApiError, errors } from '../errors/apiError';
import { isValidObjectKey } from '../../core/storage/objectStore';
import {
  ObjectExistsError,
  ObjectTooLargeError,
  UploadAbortedError,
  UPLOADS_ROUTE,
  type LocalObjectStore,
} from '../../core/storage/localObjectStore';
import { mediaTypeOf } from '../../core/storage/uploadSignature';

export const UPLOAD_PATH = `${UPLOADS_ROUTE}/:scope/:owner/:name`;

export const uploadErrors = {
  invalidUrl: () =>
    new ApiError(403, 'UPLOAD_URL_INVALID', 'the upload URL is malformed or its signature does not match'),
  expired: () => new ApiError(403, 'UPLOAD_URL_EXPIRED', 'the upload URL has expired; ask for a new one'),
  contentType: (expected: string) =>
    new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', `Content-Type must be ${expected}, as the upload URL was signed for`),
  exists: () =>
    new ApiError(409, 'UPLOAD_ALREADY_EXISTS', 'a file was already uploaded to this URL; ask for a new one'),
  aborted: () => new ApiError(400, 'VALIDATION_ERROR', 'the upload ended before its body was complete'),
  tooLarge: (maxBytes: number) =>
    new ApiError(413, 'PAYLOAD_TOO_LARGE', `the upload is larger than ${maxBytes} bytes`, { maxBytes }),
};

/**
 * Scopes never served by GET: a MED defence's evidence (receipts, screenshots of the merchant's
 * customers) is for the case, not for anyone who learns its key.
 */
const PRIVATE_SCOPES = new Set(['med-evidence']);

function keyOf(params: Record<string, string>): string | null {
  const key = `${params.scope}/${params.owner}/${params.name}`;
  return isValidObjectKey(key) ? key : null;
}

export function uploadsRouter(store: LocalObjectStore): Router {
  const put: RequestHandler = async (req, res, next) => {
    const key = keyOf(req.params as Record<string, string>);
    if (!key) throw errors.validation('the upload key is invalid');
    const check = store.verify(key, req.query as Record<string, unknown>);
    if (!check.ok) throw check.reason === 'expired' ? uploadErrors.expired() : uploadErrors.invalidUrl();
    const { grant } = check;
    if (mediaTypeOf(req.headers['content-type']) !== grant.contentType)
      throw uploadErrors.contentType(grant.contentType);
    if (Number(req.headers['content-length'] ?? 0) > grant.maxBytes)
      return refuseTooLarge(req, res, next, grant.maxBytes);
    if (req.readableEnded || (req as { _body?: boolean })._body) {
      // A JSON parser ran first and consumed the body: a wiring mistake, not the client's.
      throw new Error('uploads router mounted after a body parser; mount createAvatarRoutes before it');
    }
    try {
      const stored = await store.write(key, req, grant.contentType, grant.maxBytes);
      res.status(200).json({ key, size: stored.size });
    } catch (err) {
      if (err instanceof ObjectTooLargeError) return refuseTooLarge(req, res, next, grant.maxBytes);
      if (err instanceof ObjectExistsError) throw uploadErrors.exists();
      if (err instanceof UploadAbortedError) throw uploadErrors.aborted();
      throw err;
    }
  };

  const get: RequestHandler = async (req, res) => {
    const key = keyOf(req.params as Record<string, string>);
    const object = key && !PRIVATE_SCOPES.has(req.params.scope as string) ? await store.open(key) : null;
    if (!object) throw errors.notFound('upload');
    res.setHeader('Content-Type', object.meta.contentType);
    res.setHeader('Content-Length', String(object.meta.size));
    // Served from the API's own origin: never let a browser guess another type (an "image"
    // that is HTML), and give a document opened from here no scripts and no origin.
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
    res.setHeader('Cache-Control', 'public, max-age=300');
    await pipeline(object.stream, res);
  };

  const router = Router();
  router.put(UPLOAD_PATH, put);
  router.get(UPLOAD_PATH, get);
  return router;
}

/**
 * 413 without reading the rest of the body into the store. The connection is closed after the
 * answer (what is still in flight is discarded), so a client cannot keep streaming on it.
 */
function refuseTooLarge(
  req: Parameters<RequestHandler>[0],
  res: Parameters<RequestHandler>[1],
  next: Parameters<RequestHandler>[2],
  maxBytes: number,
): void {
  res.setHeader('Connection', 'close');
  req.resume();
  next(uploadErrors.tooLarge(maxBytes));
}
