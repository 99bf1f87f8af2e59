/** Bearer token checks: the API key for /v1/*, the control token for /sandbox/*. Constant-time so the key cannot be guessed byte by byte. */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { sendError } from './errors';

function digest(value: string): Buffer {
  // Hashing first gives equal-length buffers, which timingSafeEqual requires.
  return createHash('sha256').update(value, 'utf8').digest();
}

/** Constant-time equality of a secret given by a client and the expected one (any lengths). */
export function secretsEqual(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

export function requireApiKey(apiKey: string): RequestHandler {
  return requireBearer(apiKey, 'API key');
}

/** `Authorization: Bearer <token>` or 401; `what` names the token in the answer, never its value. */
export function requireBearer(token: string, what: string): RequestHandler {
  const expected = digest(token);
  return (req, res, next) => {
    const match = /^Bearer (.+)$/.exec(req.get('Authorization') ?? '');
    if (!match || !timingSafeEqual(digest(match[1]), expected)) {
      res.set('WWW-Authenticate', 'Bearer');
      return sendError(res, 401, 'UNAUTHORIZED', `missing or invalid ${what}`);
    }
    next();
  };
}
