/** Bearer API-key check for /v1/*. Constant-time so the key cannot be guessed byte by byte. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { sendError } from './errors';

function digest(value: string): Buffer {
  // Hashing first gives equal-length buffers, which timingSafeEqual requires.
  return createHash('sha256').update(value, 'utf8').digest();
}

export function requireApiKey(apiKey: string): RequestHandler {
  const expected = digest(apiKey);
  return (req, res, next) => {
    const match = /^Bearer (.+)$/.exec(req.get('Authorization') ?? '');
    if (!match || !timingSafeEqual(digest(match[1]), expected)) {
      res.set('WWW-Authenticate', 'Bearer');
      return sendError(res, 401, 'UNAUTHORIZED', 'missing or invalid API key');
    }
    next();
  };
}
