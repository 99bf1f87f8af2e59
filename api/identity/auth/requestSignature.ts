/**
 * Request signature check (x-gateway-timestamp + x-gateway-signature), after client
 * credentials. `required`: payouts and receipts; otherwise a signature is verified when sent.
 * A signature is accepted once: replays inside the window are refused (request_signatures_seen;
 * expired entries are swept by the outbox dispatcher workflow).
 */
import type { RequestHandler } from 'express';
import type { Sequelize } from 'sequelize';
import { requestSignatureStore } from '../../../db/identity';
import { SIGNATURE_WINDOW_MS, verifyRequestSignature } from '../../../core/signatures/requestSignature';
import { errors } from '../../errors/apiError';

export function requestSignature(deps: {
  sequelize: Sequelize;
  required: boolean;
  now?: () => number;
}): RequestHandler {
  return async (req, res, next) => {
    const timestampHeader = req.header('x-gateway-timestamp');
    const signatureHeader = req.header('x-gateway-signature');
    if (!deps.required && timestampHeader === undefined && signatureHeader === undefined) return next();
    const user = req.user;
    if (!user) return next(errors.invalidCredentials());
    const check = verifyRequestSignature({
      timestampHeader,
      signatureHeader,
      method: req.method,
      path: req.originalUrl.split('?')[0],
      rawBody: req.method === 'GET' || req.method === 'HEAD' ? '' : (req.rawBody ?? ''),
      secret: user.clientSecret,
      nowMs: deps.now?.() ?? Date.now(),
    });
    if (!check.ok) {
      res.locals.signatureFailure = check.reason; // logged by the request logger, never the signature itself
      return next(errors.invalidSignature());
    }
    const fresh = await requestSignatureStore.markSeen(deps.sequelize, {
      credentialId: user.credentialId,
      signature: signatureHeader,
      windowSeconds: (2 * SIGNATURE_WINDOW_MS) / 1000,
    });
    if (!fresh) {
      res.locals.signatureFailure = 'replay';
      return next(errors.invalidSignature());
    }
    next();
  };
}
