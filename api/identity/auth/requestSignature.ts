/**
 * Request signature check (x-gateway-timestamp + x-gateway-signature), after client
 * credentials. `required`: payouts and receipts; otherwise a signature is verified when sent.
 * A signature is accepted once: replays inside the window are refused (request_signatures_seen;
 * expired entries are swept by the outbox dispatcher workflow).
 */
import type { RequestHandler } from 'express';
import { QueryTypes, type Sequelize } from 'sequelize';
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
    const fresh = await deps.sequelize.query(
      `INSERT INTO request_signatures_seen (credential_id, signature, expires_at)
       VALUES (:credentialId, :signature, now() + make_interval(secs => :windowSeconds))
       ON CONFLICT DO NOTHING RETURNING signature`,
      {
        replacements: {
          credentialId: user.credentialId,
          signature: signatureHeader,
          windowSeconds: (2 * SIGNATURE_WINDOW_MS) / 1000,
        },
        type: QueryTypes.SELECT,
      },
    );
    if (fresh.length === 0) {
      res.locals.signatureFailure = 'replay';
      return next(errors.invalidSignature());
    }
    next();
  };
}
