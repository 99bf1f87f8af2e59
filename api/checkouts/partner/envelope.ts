/**
 * The P0 envelope `{data, success, error}` (spec "Checkout P0 public object"): every answer of
 * /v1/checkouts, successes and every error alike — including the ones raised before the route
 * (rate limit, body parser, credentials, scope), which is why `p0Errors` is mounted on the path
 * itself (app.ts) rather than inside the router.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { ApiError } from '../../errors/apiError';
import { toApiError } from '../../errors/errorHandler';

export const ok = <T>(data: T) => ({ data, success: true as const, error: null });

export function p0Failure(err: ApiError) {
  return {
    data: null,
    success: false as const,
    error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) },
  };
}

export function p0Errors(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const apiError = toApiError(err, req, res, logger);
    res.status(apiError.status).json(p0Failure(apiError));
  };
}

/** An unknown path below /v1/checkouts: 404 in the P0 envelope. */
export const p0NotFound: RequestHandler = (req, _res, next) =>
  next(new ApiError(404, 'NOT_FOUND', `no route for ${req.method} ${req.originalUrl.split('?')[0]}`));

export const p0ErrorCodes = {
  notFound: () => new ApiError(404, 'CHECKOUT_NOT_FOUND', 'checkout not found'),
  invalidId: (field: string, reason?: string) =>
    new ApiError(422, 'INVALID_CHECKOUT_ID', reason ?? `${field} must be a checkout id of the form bill_<uuid>`, {
      field,
    }),
  frequency: (frequency: string) =>
    new ApiError(422, 'FREQUENCY_NOT_ENABLED_YET', `frequency ${frequency} is not enabled yet; only ONE_TIME`, {
      frequency: frequency.slice(0, 64),
    }),
  customer: () =>
    new ApiError(422, 'CUSTOMER_NOT_ENABLED_IN_P0', 'customerId is not enabled in P0; send null or leave it out'),
  coupons: () =>
    new ApiError(422, 'COUPONS_NOT_ENABLED_IN_P0', 'coupons are not enabled in P0; send [] or leave them out'),
  priceNotFound: (itemIndex: number, priceId: string) =>
    new ApiError(422, 'COURSE_PRICE_NOT_FOUND', `item ${itemIndex}: no course price ${priceId}`, {
      itemIndex,
      priceId,
    }),
  priceNotOwned: (itemIndex: number, priceId: string) =>
    new ApiError(
      422,
      'COURSE_PRICE_NOT_OWNED_BY_MERCHANT',
      `item ${itemIndex}: course price ${priceId} does not belong to this merchant`,
      { itemIndex, priceId },
    ),
  priceInactive: (
    itemIndex: number,
    priceId: string,
    reason: 'PRICE_INACTIVE' | 'COURSE_NOT_PUBLISHED',
    courseStatus: string,
  ) =>
    new ApiError(
      422,
      'COURSE_PRICE_INACTIVE',
      reason === 'PRICE_INACTIVE'
        ? `item ${itemIndex}: course price ${priceId} is inactive`
        : `item ${itemIndex}: the course of price ${priceId} is ${courseStatus}, not PUBLISHED`,
      { itemIndex, priceId, reason, courseStatus },
    ),
  priceType: (itemIndex: number, priceId: string, type: string) =>
    new ApiError(
      422,
      'COURSE_PRICE_TYPE_NOT_ENABLED_YET',
      `item ${itemIndex}: price type ${type} is not enabled yet; only ONE_TIME`,
      { itemIndex, priceId, type },
    ),
};
