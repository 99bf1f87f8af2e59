/**
 * Credential scopes, one pair per route family: `<family>:read` for GET, `<family>:write` for
 * everything else; `:write` includes `:read`. A credential without the scope a route needs gets
 * 403 INSUFFICIENT_SCOPE. Credentials that existed before scopes were enforced were given every
 * scope by migration 0008, so they keep the access they had; new credentials get every scope
 * unless the operator names fewer.
 */
import type { Request, RequestHandler } from 'express';
import { ApiError } from '../../errors/apiError';
import { hasScope, requiredScope, type ScopeFamily } from '../../../core/identity/scopes';

// The scope rules are core's (db/ issues credentials with them too); the middleware is here.
export { ALL_SCOPES, SCOPE_FAMILIES, hasScope, requiredScope, type ScopeFamily } from '../../../core/identity/scopes';

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
