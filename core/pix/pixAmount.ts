/**
 * Money as API Pix writes it: a decimal string with exactly two decimals and up to ten integer
 * digits (`valor.original`, `valor` of a Pix or a devolução: pattern `\d{1,10}\.\d{2}`), to and
 * from our integer cents. Strict both ways: a float, a comma, a sign, a missing or third decimal
 * is an error, never a rounding. Pure.
 */

/** The standard's largest amount: ten integer digits. */
export const MAX_PIX_AMOUNT_CENTS = 9_999_999_999_99;

const PIX_AMOUNT_RE = /^(\d{1,10})\.(\d{2})$/;

export function centsToPixAmount(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0 || cents > MAX_PIX_AMOUNT_CENTS) {
    throw new RangeError(`centsToPixAmount: ${cents} is not a whole number of cents from 0 to ${MAX_PIX_AMOUNT_CENTS}`);
  }
  const reais = Math.floor(cents / 100);
  const rest = cents % 100;
  return `${reais}.${String(rest).padStart(2, '0')}`;
}

export function pixAmountToCents(amount: string): number {
  const match = PIX_AMOUNT_RE.exec(amount);
  if (!match) throw new RangeError('pixAmountToCents: not an API Pix amount (digits, a dot, two decimals)');
  // Both parts are digit strings: integer arithmetic, exact up to the ten-digit maximum.
  return Number(match[1]) * 100 + Number(match[2]);
}

export function isPixAmount(value: string): boolean {
  return PIX_AMOUNT_RE.test(value);
}
