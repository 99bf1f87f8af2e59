/**
 * The two cookies of the application API. `refresh_token`: HttpOnly, SameSite=Strict, only sent
 * to /auth, Secure outside development. `csrf_token`: the double-submit half of api/identity/auth/csrf.ts.
 */
import type { Request, Response } from 'express';
import { parse, serialize, type SerializeOptions } from 'cookie';

export const REFRESH_COOKIE = 'refresh_token';
export const CSRF_COOKIE = 'csrf_token';
export const REFRESH_TOKEN_TTL_SECONDS = 7 * 86_400;

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.header('cookie');
  if (!header || header.length > 8192) return undefined;
  return parse(header)[name];
}

function append(res: Response, name: string, value: string, opts: SerializeOptions): void {
  res.append('Set-Cookie', serialize(name, value, opts));
}

export function cookieJar(secure: boolean) {
  const base = { httpOnly: true, secure, sameSite: 'strict' as const };
  return {
    setRefresh: (res: Response, token: string) =>
      append(res, REFRESH_COOKIE, token, { ...base, path: '/auth', maxAge: REFRESH_TOKEN_TTL_SECONDS }),
    clearRefresh: (res: Response) => append(res, REFRESH_COOKIE, '', { ...base, path: '/auth', maxAge: 0 }),
    setCsrf: (res: Response, token: string) =>
      append(res, CSRF_COOKIE, token, { ...base, path: '/', maxAge: 12 * 3600 }),
  };
}

export type CookieJar = ReturnType<typeof cookieJar>;
