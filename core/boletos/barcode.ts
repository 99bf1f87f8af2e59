/**
 * The 44-digit barcode of a bank boleto and its 47-digit digitable line (linha digitável).
 *
 * Barcode (positions 1-based): 1–3 bank code (COMPE) · 4 currency (9 = real) · 5 general check
 * digit (módulo 11 over the other 43) · 6–9 due-date factor · 10–19 amount in cents · 20–44
 * free field (campo livre, the issuing bank's own layout).
 *
 * Digitable line: field 1 = bank + currency + free field 1–5 + DV (mod 10) · field 2 = free
 * field 6–15 + DV · field 3 = free field 16–25 + DV · field 4 = the barcode's general DV ·
 * field 5 = factor + amount. Printed as `AAAAA.AAAAA BBBBB.BBBBBB CCCCC.CCCCCC D EEEEEEEEEEEEEE`.
 */
import { mod10, mod11Barcode } from './checkDigits';
import { dueDateFactor } from './dueDateFactor';

/** Ten digits of amount: R$ 99,999,999.99 is the most one boleto can carry. */
export const MAX_BOLETO_AMOUNT_CENTS = 9_999_999_999;

export interface BarcodeInput {
  bankCode: string; // 3 digits
  currency?: string; // '9' (real), the only one in use
  /** 'YYYY-MM-DD', or null for a boleto without due date (factor 0000). */
  dueDate: string | null;
  amountCents: number; // 0 when the payer types the amount
  freeField: string; // 25 digits
}

export function buildBarcode(input: BarcodeInput): string {
  const currency = input.currency ?? '9';
  if (!/^\d{3}$/.test(input.bankCode)) throw new RangeError('bankCode must be 3 digits');
  if (!/^\d$/.test(currency)) throw new RangeError('currency must be 1 digit');
  if (!/^\d{25}$/.test(input.freeField)) throw new RangeError('freeField must be 25 digits');
  const { amountCents } = input;
  if (!Number.isSafeInteger(amountCents) || amountCents < 0 || amountCents > MAX_BOLETO_AMOUNT_CENTS) {
    throw new RangeError(`amountCents must be an integer 0..${MAX_BOLETO_AMOUNT_CENTS}`);
  }
  const factor = input.dueDate === null ? '0000' : dueDateFactor(input.dueDate);
  const withoutDv = `${input.bankCode}${currency}${factor}${String(amountCents).padStart(10, '0')}${input.freeField}`;
  return `${withoutDv.slice(0, 4)}${mod11Barcode(withoutDv)}${withoutDv.slice(4)}`;
}

/** The general DV a barcode should carry (computed over its other 43 digits). */
export function expectedGeneralDv(barcode: string): number {
  return mod11Barcode(barcode.slice(0, 4) + barcode.slice(5));
}

export function barcodeToDigitableLine(barcode: string): string {
  if (!/^\d{44}$/.test(barcode)) throw new RangeError('barcode must be 44 digits');
  const free = barcode.slice(19);
  const f1 = barcode.slice(0, 4) + free.slice(0, 5);
  const f2 = free.slice(5, 15);
  const f3 = free.slice(15, 25);
  return `${f1}${mod10(f1)}${f2}${mod10(f2)}${f3}${mod10(f3)}${barcode[4]}${barcode.slice(5, 19)}`;
}

/** Rebuilds the barcode from a 47-digit line. The field DVs are dropped, not checked: see parseBoletoCode. */
export function digitableLineToBarcode(line: string): string {
  const digits = line.replace(/[\s.]/g, '');
  if (!/^\d{47}$/.test(digits)) throw new RangeError('digitable line must be 47 digits');
  return (
    digits.slice(0, 4) +
    digits[32] +
    digits.slice(33, 47) +
    digits.slice(4, 9) +
    digits.slice(10, 20) +
    digits.slice(21, 31)
  );
}

/** `00190.00009 01234.567891 ...` the way boletos print it. */
export function formatDigitableLine(line: string): string {
  const d = line.replace(/[\s.]/g, '');
  if (!/^\d{47}$/.test(d)) throw new RangeError('digitable line must be 47 digits');
  return `${d.slice(0, 5)}.${d.slice(5, 10)} ${d.slice(10, 15)}.${d.slice(15, 21)} ${d.slice(21, 26)}.${d.slice(26, 32)} ${d[32]} ${d.slice(33)}`;
}
