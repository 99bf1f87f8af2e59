/** What a paid charge credited, the base of its refunds: a boleto is settled for what was paid, with the fee taken on that. Pure. */
export function paidMoney(charge: {
  method: string | null;
  amountCents: number;
  feeCents: number;
  boletoPaidAmountCents?: number | null;
  boletoPaidFeeCents?: number | null;
}): { amountCents: number; feeCents: number } {
  if (
    charge.method === 'BOLETO' &&
    charge.boletoPaidAmountCents !== null &&
    charge.boletoPaidAmountCents !== undefined
  ) {
    return { amountCents: charge.boletoPaidAmountCents, feeCents: charge.boletoPaidFeeCents ?? 0 };
  }
  return { amountCents: charge.amountCents, feeCents: charge.feeCents };
}
