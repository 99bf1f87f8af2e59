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

export const jsonBody: RequestHandler = express.json({
  limit: '1mb',
  strict: true,
  type: () => true,
  verify: (req, _res, buf) => {
    req.rawBody = buf;
  },
});

/** Methods that carry a body must declare it as JSON. */
export const requireJsonContentType: RequestHandler = (req, _res, next) => {
  const hasBody = Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined;
  if (['POST', 'PUT', 'PATCH'].includes(req.method) && hasBody && !req.is('application/json')) {
    return next(new ApiError(400, 'VALIDATION_ERROR', 'Content-Type must be application/json'));
  }
  next();
};
