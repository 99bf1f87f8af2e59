/**
 * Credential scopes, one pair per route family: `<family>:read` for GET, `<family>:write` for
 * everything else; `:write` includes `:read`. A credential without the scope a route needs gets
 * 403 INSUFFICIENT_SCOPE. Credentials that existed before scopes were enforced were given every
 * scope by migration 0008, so they keep the access they had; new credentials get every scope
 * unless the operator names fewer.
 */
import type { Request, RequestHandler } from 'express';
import { ApiError } from '../../errors/apiError';

export const SCOPE_FAMILIES = ['charges', 'withdrawals', 'webhooks', 'payouts', 'checkout'] as const;
export type ScopeFamily = (typeof SCOPE_FAMILIES)[number];

export const ALL_SCOPES: string[] = SCOPE_FAMILIES.flatMap((family) => [`${family}:read`, `${family}:write`]);

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function requiredScope(family: ScopeFamily, method: string): string {
  return `${family}:${READ_METHODS.has(method) ? 'read' : 'write'}`;
}

export function hasScope(granted: readonly string[], required: string): boolean {
  if (granted.includes(required)) return true;
  return required.endsWith(':read') && granted.includes(required.replace(/:read$/, ':write'));
}

export const insufficientScope = (required: string) =>
  new ApiError(403, 'INSUFFICIENT_SCOPE', `this credential lacks the scope ${required}`, { requiredScope: required });

/**
 * After authentication. `familyOf` maps a request to its family; undefined (no such route)
 * passes, so an unknown path still answers 404.
 */
export function requireScope(familyOf: ScopeFamily | ((req: Request) => ScopeFamily | undefined)): RequestHandler {
  return (req, _res, next) => {
    const family = typeof familyOf === 'function' ? familyOf(req) : familyOf;
    if (!family) return next();
    const required = requiredScope(family, req.method);
    if (!hasScope(req.user?.scopes ?? [], required)) return next(insufficientScope(required));
    next();
  };
}

/** Seller routes by their first path segment below /sellers (or /rifeiro). */
const SELLER_FAMILIES = new Map<string, ScopeFamily>([
  ['pix', 'charges'],
  ['saques', 'withdrawals'],
  ['webhooks', 'webhooks'],
  ['webhook-deliveries', 'webhooks'],
  ['events', 'webhooks'],
]);

export const sellerScopeFamily = (req: Request): ScopeFamily | undefined =>
  SELLER_FAMILIES.get(req.path.split('/')[1] ?? '');
