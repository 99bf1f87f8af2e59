/** Every request gets a trace id (ours, not the caller's), echoed in `x-trace-id` and in error bodies. */
import crypto from 'node:crypto';
import type { RequestHandler } from 'express';

export const traceId: RequestHandler = (_req, res, next) => {
  const id = crypto.randomUUID();
  res.locals.traceId = id;
  res.setHeader('x-trace-id', id);
  next();
};
