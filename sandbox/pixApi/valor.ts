/**
 * Money in API Pix is a decimal string with a dot and two decimals ("12.34", at most ten integer
 * digits); the sandbox's model counts integer cents. Converting through the string's digits keeps
 * it exact (no float ever holds an amount).
 */
export const VALOR_RE = /^\d{1,10}\.\d{2}$/;

export function valorToCents(valor: string): number {
  if (!VALOR_RE.test(valor)) throw new RangeError(`not an API Pix amount: ${valor}`);
  return Number(valor.replace('.', ''));
}

export function centsToValor(cents: number): string {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new RangeError(`not an amount in cents: ${cents}`);
  const digits = String(cents).padStart(3, '0');
  return `${digits.slice(0, -2)}.${digits.slice(-2)}`;
}
