/**
 * Credential scopes, one pair per route family: `<family>:read` for GET, `<family>:write` for
 * everything else; `:write` includes `:read`. The API enforces them (api/identity/auth/scopes.ts);
 * the operator's credential issuing (db/identity/merchantAdmin.ts) grants them.
 */
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
