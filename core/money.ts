/** Money arithmetic on integer cents. No floats ever reach a stored amount. */

export interface FeeSchedule {
  /** Percentage fee in basis points (1 bp = 0.01%). */
  bps: number;
  fixedCents: number;
}

/** Fee = fixed + bps of the amount, rounded half up, never more than the amount itself. */
export function computeFee(amountCents: number, fee: FeeSchedule): number {
  assertCents(amountCents);
  const variable = Math.floor((amountCents * fee.bps + 5_000) / 10_000);
  return Math.min(amountCents, fee.fixedCents + variable);
}

export function assertCents(value: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`amount must be an integer number of cents, got ${value}`);
}
