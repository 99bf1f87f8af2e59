/**
 * The provider's account statement (GET /v1/statements?from=&to=): what a real PSP's extrato
 * lists, read by the gateway's Reconciliation workflow. Charges by paidAt, transfers and
 * devoluções by createdAt, in [from, to).
 */
import type { ProviderStatement } from '../core/provider';
import { findChargeRecord, getChargeRecord } from './charges';
import { findTransferByReference } from './transfers';
import type { SandboxContext } from './context';
import { SandboxHttpError } from './errors';

export function statement(ctx: SandboxContext, from: Date, to: Date): ProviderStatement {
  if (!(from.getTime() < to.getTime())) throw new SandboxHttpError(400, 'VALIDATION_ERROR', 'from must be before to');
  const inRange = (iso: string) => {
    const t = Date.parse(iso);
    return t >= from.getTime() && t < to.getTime();
  };
  const payments: ProviderStatement['payments'] = [];
  for (const rec of ctx.state.charges.values()) {
    const c = rec.charge;
    if (c.status !== 'PAID' || !c.paidAt || !c.endToEndId || !inRange(c.paidAt)) continue;
    payments.push({
      providerChargeId: c.id,
      reference: c.reference,
      amountCents: rec.statementAmountCents ?? c.amountCents,
      endToEndId: c.endToEndId,
      paidAt: c.paidAt,
    });
  }
  const transfers: ProviderStatement['transfers'] = [...ctx.state.transfers.values()]
    .filter((t) => inRange(t.createdAt))
    .map((t) => ({
      id: t.id,
      reference: t.reference,
      kind: t.returnOf ? ('RETURN' as const) : ('TRANSFER' as const),
      status: t.status,
      amountCents: ctx.state.transferStatementAmounts.get(t.id) ?? t.amountCents,
      endToEndId: t.endToEndId,
      returnOf: t.returnOf ?? null,
      createdAt: t.createdAt,
    }));
  return { from: from.toISOString(), to: to.toISOString(), payments, transfers };
}

/** Test control: the statement (and API Pix's GET /pix list) reports `amountCents` for this paid charge from now on. */
export function setStatementAmount(ctx: SandboxContext, idReferenceOrTxid: string, amountCents: number): number {
  const rec = findChargeRecord(ctx, idReferenceOrTxid) ?? getChargeRecord(ctx, idReferenceOrTxid);
  rec.statementAmountCents = amountCents;
  return amountCents;
}

/** Test control: the statement reports `amountCents` for the transfer with our `reference` from now on. */
export function setTransferStatementAmount(ctx: SandboxContext, reference: string, amountCents: number): number {
  const transfer = findTransferByReference(ctx, reference);
  if (!transfer) throw new SandboxHttpError(404, 'TRANSFER_NOT_FOUND', `no transfer with reference ${reference}`);
  ctx.state.transferStatementAmounts.set(transfer.id, amountCents);
  return amountCents;
}
