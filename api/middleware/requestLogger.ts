/**
 * One structured log line per request, on a child logger that carries the traceId (also used
 * by the error handler, so every line of a request shares it). Only method, path (no query),
 * status, duration and the merchant are logged: never headers or bodies, which hold secrets.
 */
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { withoutWebhookSecret } from '../../core/pix/callbackPath';

export function requestLogger(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const log = logger.child({ traceId: res.locals.traceId as string });
    res.locals.log = log;
    res.on('finish', () => {
      log.info(
        {
          method: req.method,
          // The API Pix notification path carries a secret segment.
          path: withoutWebhookSecret(req.originalUrl.split('?')[0]),
          status: res.statusCode,
          durationMs: Number((process.hrtime.bigint() - started) / 1_000_000n),
          merchantId: req.user?.merchantId,
          signatureFailure: res.locals.signatureFailure,
        },
        'request',
      );
    });
    next();
  };
}
