/**
 * The one error envelope: {error: {code, message, details, traceId}}. Unknown errors are logged
 * with the trace id and answered as INTERNAL_ERROR without any internal detail.
 */
import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { ConnectionAcquireTimeoutError, ConnectionError } from 'sequelize';
import { databaseConflictOf } from '../../db/diagnostics';
import { ApiError } from './apiError';
import { withoutWebhookSecret } from '../../core/pix/callbackPath';

export function envelope(err: ApiError, traceId: string) {
  return { error: { code: err.code, message: err.message, details: err.details, traceId } };
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(new ApiError(404, 'NOT_FOUND', `no route for ${req.method} ${withoutWebhookSecret(req.path)}`));
};

/** Any error as the ApiError it is answered with; unknown ones are logged (with the trace id) and become INTERNAL_ERROR. */
export function toApiError(err: any, req: Request, res: Response, logger: Logger): ApiError {
  // The request's logger already carries the traceId (api/middleware/requestLogger.ts); a line
  // never names it again, or it would carry the key twice.
  const log: Logger = (res.locals.log as Logger | undefined) ?? logger.child({ traceId: res.locals.traceId as string });
  let apiError: ApiError;
  const conflict = databaseConflictOf(err);
  if (err instanceof ApiError) {
    apiError = err;
  } else if (err?.type === 'entity.parse.failed') {
    apiError = new ApiError(400, 'VALIDATION_ERROR', 'request body is not valid JSON');
  } else if (err?.type === 'entity.too.large') {
    apiError = new ApiError(413, 'PAYLOAD_TOO_LARGE', 'request body is too large');
  } else if (err instanceof ConnectionError || err instanceof ConnectionAcquireTimeoutError) {
    // The database is away (restart, failover): the client may retry, nothing was done.
    log.warn({ error: err.name }, 'database unavailable');
    apiError = new ApiError(503, 'SERVICE_UNAVAILABLE', 'the database is unavailable; retry shortly');
  } else if (conflict) {
    // PostgreSQL broke a deadlock or a serialization conflict by rolling this transaction back:
    // nothing was done, and the same request succeeds when sent again.
    log.warn({ error: err.name, sqlState: conflict }, 'database conflict; the request was rolled back');
    apiError = new ApiError(503, 'SERVICE_UNAVAILABLE', 'the request met a concurrent one and was undone; retry it', {
      retryAfterSeconds: 1,
    });
  } else if (typeof err?.status === 'number' && err.status >= 400 && err.status < 500) {
    apiError = new ApiError(400, 'VALIDATION_ERROR', 'request could not be read');
  } else {
    log.error(
      {
        err: { message: err?.message, name: err?.name, stack: err?.stack },
        path: withoutWebhookSecret(req.originalUrl.split('?')[0]),
      },
      'unhandled error',
    );
    apiError = new ApiError(500, 'INTERNAL_ERROR', 'internal error; quote the traceId to support');
  }
  if (apiError.status >= 500 && err instanceof ApiError)
    log.warn({ code: apiError.code, ...causeOf(apiError) }, apiError.message);
  // A brake that names its wait (TOO_MANY_ATTEMPTS, TOO_MANY_STREAMS) says it in the standard header too.
  const retryAfter = apiError.details?.retryAfterSeconds;
  if (typeof retryAfter === 'number' && !res.headersSent) res.setHeader('Retry-After', String(retryAfter));
  return apiError;
}

/** What a 5xx ApiError answers for, for its log line: the cause's class, gRPC status and message. */
function causeOf(err: ApiError): { cause?: { name?: unknown; code?: unknown; message?: unknown } } {
  const cause = err.cause as { name?: unknown; code?: unknown; message?: unknown } | undefined;
  return cause ? { cause: { name: cause.name, code: cause.code, message: cause.message } } : {};
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const apiError = toApiError(err, req, res, logger);
    res.status(apiError.status).json(envelope(apiError, res.locals.traceId as string));
  };
}
