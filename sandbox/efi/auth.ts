/**
 * Efí's routes take the same bearer tokens as API Pix (one AccessTokens: a token from
 * POST /oauth/token works on both), answering 401 in Efí's own form. Scopes are not checked
 * here (the token's account is: res.locals.pixAccount, accounts.ts requestAccount): the token endpoint grants API Pix's by default and accepts Efí's when asked
 * (pixApi/oauth.ts), and the sandbox does not make a client ask for them.
 */
import type { RequestHandler } from 'express';
import { certificateRefused } from '../accountCertificates';
import { CERTIFICATE_REFUSED_TEXT, type AccessTokens } from '../pixApi/oauth';
import { EfiError, sendEfiError } from './errors';

export function requireEfiToken(tokens: AccessTokens): RequestHandler {
  return (req, res, next) => {
    const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(req.get('Authorization') ?? '');
    const grant = match ? tokens.verify(match[1]) : null;
    // Over mutual TLS the connection's certificate must be the token's account's (accountCertificates.ts).
    const refused = grant !== null && certificateRefused(req, grant.account.certificateSha256);
    if (grant && !refused) {
      res.locals.pixAccount = grant.account;
      return next();
    }
    res.set('WWW-Authenticate', 'Bearer realm="efi", error="invalid_token"');
    sendEfiError(
      res,
      new EfiError(
        401,
        'nao_autorizado',
        refused
          ? CERTIFICATE_REFUSED_TEXT
          : match
            ? 'O access token é desconhecido ou expirou: obtenha outro em /oauth/token.'
            : 'Envie um access token: Authorization: Bearer <token>.',
      ),
    );
  };
}
