/**
 * The PSP's OAuth 2.0 authorization server for API Pix (RFC 6749 §4.4, client credentials):
 * POST /oauth/token with the client id and secret in HTTP Basic and the form body
 * grant_type=client_credentials[&scope=...], answering {access_token, token_type: "Bearer",
 * expires_in, scope}. Errors are RFC 6749's own JSON ({error, error_description}), not
 * problem+json: the token endpoint is OAuth's, not API Pix's. Access tokens are opaque random
 * strings, kept (hashed) in memory only: a restart logs every client out, and the client's next
 * call gets a 401 and fetches a new one, which a real PSP's key rotation also asks of it.
 */
import { createHash, randomBytes } from 'node:crypto';
import express, { Router, type ErrorRequestHandler, type RequestHandler, type Response } from 'express';
import { certificateRefused } from '../accountCertificates';
import type { SandboxAccount, SandboxAccounts } from '../accounts';
import { PixProblem, sendUnauthorized } from './problem';

/** The scopes of the operations this sandbox implements (the document's OAuth2 scheme names them). */
export const PIX_API_SCOPES = [
  'cob.read',
  'cob.write',
  'pix.read',
  'pix.write',
  'webhook.read',
  'webhook.write',
  // Pix Automático (recRoutes.ts).
  'rec.read',
  'rec.write',
  'solicrec.read',
  'solicrec.write',
  'cobr.read',
  'cobr.write',
  'payloadlocationrec.read',
  'payloadlocationrec.write',
  'webhookrec.read',
  'webhookrec.write',
  'webhookcobr.read',
  'webhookcobr.write',
] as const;
export type PixApiScope = (typeof PIX_API_SCOPES)[number];

/**
 * Efí's scopes for its own routes (sandbox/efi/): granted when asked for, so a client that asks
 * for them as it would at Efí gets a token; not in the default grant, and not checked by the
 * sandbox's Efí routes (any valid token works there).
 */
export const EFI_SCOPES = [
  'pix.send',
  'gn.pix.send.read',
  'gn.balance.read',
  'gn.infractions.read',
  'gn.infractions.write',
] as const;

interface IssuedToken {
  /** The account whose client credentials were given: every route acts on it only. */
  account: SandboxAccount;
  scopes: ReadonlySet<string>;
  /** Real clock (ms): token lifetimes are about wall time, not the sandbox's injectable clock. */
  expiresAt: number;
}

/** Bounds memory of a long-running sandbox: past it, expired tokens are swept before issuing. */
const SWEEP_ABOVE = 10_000;

export class AccessTokens {
  private readonly byHash = new Map<string, IssuedToken>();

  constructor(private readonly ttlSeconds: number) {
    if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1)
      throw new Error('the access token lifetime must be a whole number of seconds, at least 1');
  }

  issue(
    account: SandboxAccount,
    scopes: readonly string[],
  ): { access_token: string; token_type: 'Bearer'; expires_in: number; scope: string } {
    if (this.byHash.size > SWEEP_ABOVE) this.sweep();
    const token = randomBytes(32).toString('base64url');
    this.byHash.set(hash(token), { account, scopes: new Set(scopes), expiresAt: Date.now() + this.ttlSeconds * 1000 });
    return { access_token: token, token_type: 'Bearer', expires_in: this.ttlSeconds, scope: scopes.join(' ') };
  }

  /** The token's grant, or null when unknown or expired. */
  verify(token: string): IssuedToken | null {
    const key = hash(token);
    const grant = this.byHash.get(key);
    if (!grant) return null;
    if (grant.expiresAt <= Date.now()) {
      this.byHash.delete(key);
      return null;
    }
    return grant;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, grant] of this.byHash) if (grant.expiresAt <= now) this.byHash.delete(key);
  }
}

function hash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * The token endpoint's answer to valid credentials over a certificate that is not the account's
 * (401, RFC 6749's JSON). RFC 8705 §2 would say `invalid_client`; Efí publishes no name for it,
 * so this one is the sandbox's (an assumption, sandbox/README.md "Accounts"), kept apart from a
 * wrong secret so that a client can tell the two.
 */
export const CERTIFICATE_REFUSED_ERROR = 'certificado_invalido';
/** The same refusal on API Pix and Efí's routes (a token used over another account's certificate). */
export const CERTIFICATE_REFUSED_TEXT =
  'O certificado apresentado na conexão não pertence à conta desta aplicação: use o certificado emitido para a conta.';

function oauthError(res: Response, status: 400 | 401, error: string, description: string): void {
  if (status === 401) res.set('WWW-Authenticate', 'Basic realm="api-pix"');
  res.status(status).set('Cache-Control', 'no-store').json({ error, error_description: description });
}

/** "Basic base64(id:secret)", each half form-urlencoded first (RFC 6749 §2.3.1), or null. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | null {
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  try {
    const formDecode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

/** POST /oauth/token (mounted at /oauth): the token is bound to the account whose credentials were given. */
export function oauthRoutes(accounts: SandboxAccounts, tokens: AccessTokens): Router {
  const router = Router();
  router.post('/token', express.urlencoded({ extended: false, limit: '8kb' }), (req, res) => {
    const credentials = basicCredentials(req.get('Authorization'));
    const account = credentials ? accounts.authenticate(credentials.id, credentials.secret) : null;
    if (!credentials || !account)
      return oauthError(
        res,
        401,
        'invalid_client',
        'client authentication failed: send the client id and secret in HTTP Basic',
      );
    // Only once the secret is right, so the answer says nothing of a client id to who lacks it.
    if (certificateRefused(req, account.certificateSha256))
      return oauthError(res, 401, CERTIFICATE_REFUSED_ERROR, CERTIFICATE_REFUSED_TEXT);
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!req.is('application/x-www-form-urlencoded'))
      return oauthError(res, 400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
    if (typeof body.grant_type !== 'string')
      return oauthError(res, 400, 'invalid_request', 'grant_type is required (once)');
    if (body.grant_type !== 'client_credentials')
      return oauthError(res, 400, 'unsupported_grant_type', 'only grant_type=client_credentials');
    if (body.scope !== undefined && typeof body.scope !== 'string')
      return oauthError(res, 400, 'invalid_request', 'scope given more than once');
    const asked = typeof body.scope === 'string' ? body.scope.split(' ').filter(Boolean) : [...PIX_API_SCOPES];
    const known: readonly string[] = [...PIX_API_SCOPES, ...EFI_SCOPES];
    const unknown = asked.filter((s) => !known.includes(s));
    if (unknown.length > 0)
      return oauthError(
        res,
        400,
        'invalid_scope',
        `unknown scope(s): ${unknown.join(' ')}; this PSP grants ${known.join(' ')}`,
      );
    res
      .set('Cache-Control', 'no-store')
      .set('Pragma', 'no-cache')
      .json(tokens.issue(account, [...new Set(asked)]));
  });
  const malformed: ErrorRequestHandler = (err: unknown, _req, res, next) => {
    const status = (err as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500)
      return oauthError(res, 400, 'invalid_request', 'the body could not be read');
    next(err);
  };
  router.use(malformed);
  return router;
}

/**
 * API Pix routes: a valid, unexpired bearer token or 401 (problem+json); its grant in res.locals.
 * Over mutual TLS the connection's certificate must be the token's account's too (a PSP checks
 * it on every call): another account's is 401 as well.
 */
export function requireAccessToken(tokens: AccessTokens): RequestHandler {
  return (req, res, next) => {
    const match = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i.exec(req.get('Authorization') ?? '');
    const grant = match ? tokens.verify(match[1]) : null;
    if (!grant)
      return sendUnauthorized(
        res,
        match
          ? 'O access token é desconhecido ou expirou: obtenha outro em /oauth/token.'
          : 'Envie um access token: Authorization: Bearer <token>.',
      );
    if (certificateRefused(req, grant.account.certificateSha256))
      return sendUnauthorized(res, CERTIFICATE_REFUSED_TEXT);
    res.locals.pixGrant = grant;
    res.locals.pixAccount = grant.account;
    next();
  };
}

/** 403 AcessoNegado when the token was not granted the operation's scope (the document names one per operation). */
export function requireScope(scope: PixApiScope): RequestHandler {
  return (_req, res, next) => {
    const grant = res.locals.pixGrant as IssuedToken | undefined;
    if (!grant?.scopes.has(scope))
      return next(new PixProblem('AcessoNegado', `O access token não tem o escopo ${scope}.`));
    next();
  };
}
