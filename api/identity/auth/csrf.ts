/**
 * CSRF protection for the calls a browser authenticates with a cookie (refresh, logout): a
 * signed double submit (OWASP). GET /auth/csrf answers a token and sets it as a cookie; the call
 * must carry the same token in `x-csrf-token`. A cross-site page can make the browser send the
 * cookie but cannot read it to copy it into the header, and cannot mint a token of its own: the
 * token is HMAC-signed with a server key. Bearer-only calls need none (no ambient credential).
 */
import crypto from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { safeEqual } from '../../../core/crypto/secretBox';
import { ApiError } from '../../errors/apiError';
import { CSRF_COOKIE, readCookie } from './cookies';

export const csrfInvalid = () =>
  new ApiError(
    403,
    'CSRF_TOKEN_INVALID',
    'x-csrf-token is missing or does not match the csrf cookie; get one from GET /auth/csrf',
  );

export class CsrfTokens {
  constructor(private readonly key: Buffer) {}

  issue(): string {
    const nonce = crypto.randomBytes(24).toString('base64url');
    return `${nonce}.${this.sign(nonce)}`;
  }

  valid(token: string | undefined): boolean {
    if (!token || token.length > 200) return false;
    const [nonce, mac, extra] = token.split('.');
    return Boolean(nonce && mac && extra === undefined && safeEqual(mac, this.sign(nonce)));
  }

  /** Header and cookie both present, equal, and minted by us. */
  check(req: Request): boolean {
    const header = req.header('x-csrf-token');
    const cookie = readCookie(req, CSRF_COOKIE);
    return Boolean(header && cookie && safeEqual(header, cookie) && this.valid(header));
  }

  /** For routes authenticated by the refresh cookie: refuse without a matching token. */
  require(): RequestHandler {
    return (req, _res, next) => next(this.check(req) ? undefined : csrfInvalid());
  }

  private sign(nonce: string): string {
    return crypto.createHmac('sha256', this.key).update(`csrf.${nonce}`).digest('base64url');
  }
}

/** The CSRF key, derived from the access-token key so there is no extra secret to manage. */
export function csrfKey(jwtSecret: string): Buffer {
  return Buffer.from(crypto.hkdfSync('sha256', jwtSecret, 'pix-gateway', 'csrf-double-submit', 32));
}
