/**
 * Check 3, the bundled sandbox's side (optional: `--sandbox-url`): its own count of what each
 * reference was created as (GET /sandbox/transfers: per Efí idEnvio, per /v1 reference, per
 * devolução id). The provider's idempotency folds a second send into the first, so its list
 * cannot show one made twice; these counters can.
 */
import { referenceOfIdEnvio } from '../../core/pix/apiPixIds';
import type { AuditCheck, AuditOptions } from './types';

type Counters = Record<string, { requests: number; created: number }>;

export async function auditSandboxSends(opts: AuditOptions): Promise<AuditCheck> {
  if (!opts.sandbox) throw new Error('auditSandboxSends: no sandbox given');
  const { url, controlToken } = opts.sandbox;
  const res = await fetch(new URL('/sandbox/transfers', url), {
    // The control routes' token outside development; never printed.
    headers: controlToken ? { authorization: `Bearer ${controlToken}` } : {},
  });
  if (!res.ok) throw new Error(`the sandbox's GET /sandbox/transfers answered ${res.status}`);
  const { references } = (await res.json()) as { references: Counters };
  const twice = Object.entries(references).filter(([, c]) => c.created > 1);
  return {
    check: 'sandbox-sends',
    examined: Object.keys(references).length,
    // An idEnvio, a devolução id and a /v1 reference are each our id's 32 hex digits, or our id itself.
    discrepancies: twice.map(([reference, c]) => ({
      row: `transfer:${referenceOfIdEnvio(reference) ?? reference}`,
      problem: `created ${c.created} times at the provider (${c.requests} requests)`,
    })),
    notes: [],
  };
}
