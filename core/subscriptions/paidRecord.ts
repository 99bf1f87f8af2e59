/**
 * What a cycle is credited on: the PSP's record of the cobr's payment. The cobr's status (or an
 * attempt's) says it was paid; its pix record says which payment, how much and when.
 */
import type { ProviderCycleCharge } from '../pixAutomatico/types';

export interface CyclePaidRecord {
  endToEndId: string;
  amountCents: number;
  paidAt: string;
}

/** The cobr's paid record: CONCLUIDA or an attempt PAGA, its endToEndId, and the amount it paid. */
export function paidRecord(cobr: ProviderCycleCharge): CyclePaidRecord | null {
  const attempt = cobr.attempts.find((a) => a.status === 'PAID');
  if (cobr.status !== 'PAID' && !attempt) return null;
  const payment = cobr.payments.find((p) => p.endToEndId === attempt?.endToEndId) ?? cobr.payments[0];
  const endToEndId = attempt?.endToEndId ?? payment?.endToEndId;
  if (!endToEndId) return null;
  return {
    endToEndId,
    amountCents: payment?.amountCents ?? cobr.amountCents,
    paidAt: payment?.paidAt ?? new Date().toISOString(),
  };
}
