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

/**
 * The cobr's paid record: CONCLUIDA or an attempt PAGA, and the pix record of that payment (the
 * paid attempt's endToEndId among the cobr's pix; CONCLUIDA without an attempt: its pix). None
 * while the PSP shows no such record: the cycle is then not confirmed and stays open until a
 * later reading shows it, rather than credited at the worker's clock or at the amount asked.
 */
export function paidRecord(cobr: ProviderCycleCharge): CyclePaidRecord | null {
  const attempt = cobr.attempts.find((a) => a.status === 'PAID');
  if (cobr.status !== 'PAID' && !attempt) return null;
  const payment = attempt ? cobr.payments.find((p) => p.endToEndId === attempt.endToEndId) : cobr.payments[0];
  if (!payment) return null;
  return { endToEndId: payment.endToEndId, amountCents: payment.amountCents, paidAt: payment.paidAt };
}
