/**
 * JSON body parsing that keeps the raw bytes (signatures are computed over the body exactly as
 * sent) and refuses a body that is not JSON on routes that take one.
 */
import express, { type RequestHandler } from 'express';
import { ApiError } from '../errors/apiError';

declare module 'http' {
  interface IncomingMessage {
    rawBody?: Buffer;
  }
}

const keepRawBody = (req: import('http').IncomingMessage, _res: unknown, buf: Buffer) => {
  req.rawBody = buf;
};

/** 1 MB everywhere, more on the routes listed (a 10,000-item payout batch is a few MB). */
export function jsonBody(largeBodyPaths: { prefix: string; limit: string }[] = []): RequestHandler {
  const standard = express.json({ limit: '1mb', strict: true, type: () => true, verify: keepRawBody });
  const large = largeBodyPaths.map((p) => ({ prefix: p.prefix, parser: express.json({ limit: p.limit, strict: true, type: () => true, verify: keepRawBody }) }));
  return (req, res, next) => {
    const match = large.find((l) => req.path.startsWith(l.prefix));
    return (match ? match.parser : standard)(req, res, next);
  };
}

/** Methods that carry a body must declare it as JSON. */
export const requireJsonContentType: RequestHandler = (req, _res, next) => {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (['POST', 'PUT', 'PATCH'].includes(req.method) && hasBody && !req.is('application/json')) {
    return next(new ApiError(400, 'VALIDATION_ERROR', 'Content-Type must be application/json'));
  }
  next();
};
