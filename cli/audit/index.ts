/**
 * The audit (`npm run gateway -- audit`, and the chaos run's last step): runs every check on
 * the same dependencies and answers their results in order. Read-only. A check that cannot run
 * (its database query, the provider or Temporal failing) throws: an audit that could not look
 * is never reported clean.
 */
import { auditCharges } from './charges';
import { auditLedger } from './ledger';
import { auditReservations } from './reservations';
import { auditSandboxSends } from './sandboxSends';
import { auditTransfers } from './transfers';
import type { AuditCheck, AuditDeps, AuditOptions } from './types';
import { auditWebhooks } from './webhooks';
import { auditWorkflows } from './workflows';

export { formatAudit } from './format';
export type { AuditCheck, AuditDeps, AuditOptions, Discrepancy, StatementSource } from './types';

export interface AuditReport {
  clean: boolean;
  checks: AuditCheck[];
}

export async function runAudit(deps: AuditDeps, opts: AuditOptions): Promise<AuditReport> {
  // One "now" for every check: what one check calls quiet, the next does too.
  const fixed = { ...opts, now: opts.now ?? new Date() };
  const checks: AuditCheck[] = [];
  checks.push(await auditCharges(deps, fixed));
  checks.push(await auditWebhooks(deps, fixed));
  checks.push(await auditTransfers(deps, fixed));
  if (fixed.sandbox) checks.push(await auditSandboxSends(fixed));
  checks.push(await auditReservations(deps));
  checks.push(await auditWorkflows(deps, fixed));
  checks.push(await auditLedger(deps));
  return { clean: checks.every((c) => c.discrepancies.length === 0), checks };
}
