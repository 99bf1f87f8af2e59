/** Error shape of every sandbox answer: `{ error: { code, message, ...details } }`. */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';

export class SandboxHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'SandboxHttpError';
  }
}

export function sendError(res: Response, status: number, code: string, message: string, details = {}): void {
  res.status(status).json({ error: { code, message, ...details } });
}

export const notFoundHandler: RequestHandler = (_req, res) => {
  sendError(res, 404, 'NOT_FOUND', 'route not found');
};

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, _req, res, _next) => {
    if (err instanceof SandboxHttpError) {
      return sendError(res, err.status, err.code, err.message, err.details);
    }
    // body-parser errors carry a 4xx status and a type such as 'entity.parse.failed'.
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return sendError(res, status, 'INVALID_REQUEST', (err as Error).message);
    }
    logger.error({ err }, 'sandbox internal error');
    sendError(res, 500, 'INTERNAL', 'internal sandbox error');
  };
}
