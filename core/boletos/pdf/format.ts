/**
 * How a boleto prints its numbers (pt-BR conventions, FEBRABAN's digitable-line grouping).
 * Pure string functions, no Intl: Intl's pt-BR currency puts a no-break space after "R$", which
 * copies badly out of a PDF, and the boleto's rules are fixed, not locale preferences.
 */

/** 123456 → "R$ 1.234,56"; negative amounts never appear on a boleto. */
export function formatBrl(amountCents: number): string {
  if (!Number.isSafeInteger(amountCents) || amountCents < 0)
    throw new RangeError(`amountCents must be a non-negative integer, got ${amountCents}`);
  const reais = Math.floor(amountCents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `R$ ${reais},${String(amountCents % 100).padStart(2, '0')}`;
}

/** "2025-03-07" → "07/03/2025" (a calendar date, no time zone involved). */
export function formatIsoDate(isoDate: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDate);
  if (!m) throw new RangeError(`date must be YYYY-MM-DD, got ${JSON.stringify(isoDate)}`);
  return `${m[3]}/${m[2]}/${m[1]}`;
}

/**
 * The calendar date of an instant in Brasília time (the date a Brazilian reads on the document),
 * as YYYY-MM-DD. Brazil has had no daylight saving since 2019, but the zone database knows the
 * older rules, so Intl is used rather than a fixed −03:00.
 */
export function isoDateInBrasilia(instant: Date): string {
  if (Number.isNaN(instant.getTime())) throw new RangeError('issuedAt is not a valid date');
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/Sao_Paulo',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(instant);
  const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** 47 digits → "XXXXX.XXXXX XXXXX.XXXXXX XXXXX.XXXXXX X XXXXXXXXXXXXXX". */
export function formatDigitableLine(digits: string): string {
  if (!/^\d{47}$/.test(digits)) throw new RangeError('digitable line must have 47 digits');
  const d = digits;
  return `${d.slice(0, 5)}.${d.slice(5, 10)} ${d.slice(10, 15)}.${d.slice(15, 21)} ${d.slice(21, 26)}.${d.slice(26, 32)} ${d[32]} ${d.slice(33)}`;
}

/**
 * The digitable line carries the barcode's 44 digits in another order (plus three field check
 * digits): bank+currency, free field 1–5, free field 6–15, free field 16–25, general check digit,
 * due-date factor + amount. A PDF whose line and bars disagree would pay someone else's boleto,
 * so the renderer refuses it; the check digits themselves are the issuer's business.
 */
export function barcodeMatchesDigitableLine(barcode: string, line: string): boolean {
  if (!/^\d{44}$/.test(barcode) || !/^\d{47}$/.test(line)) return false;
  const fromLine =
    line.slice(0, 4) + line[32] + line.slice(33, 47) + line.slice(4, 9) + line.slice(10, 20) + line.slice(21, 31);
  return fromLine === barcode;
}

/** CPF 000.000.000-00, CNPJ 00.000.000/0000-00; anything else is printed as given. */
export function formatTaxId(document: string, documentType: 'CPF' | 'CNPJ'): string {
  const d = document.replace(/\D/g, '');
  if (documentType === 'CPF' && d.length === 11)
    return `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}`;
  if (documentType === 'CNPJ' && d.length === 14)
    return `${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5, 8)}/${d.slice(8, 12)}-${d.slice(12)}`;
  return document;
}

/**
 * "341" → "341-7": the bank's compensation code and its check digit (mod 11, weights 2.. from the
 * right; a result of 10 or 11 prints 0), as printed in bold beside the bank's name. A code that
 * already carries its digit ("341-7") is printed as given.
 */
export function bankCodeWithDigit(bankCode: string): string {
  if (/^\d{3}-[\dX]$/.test(bankCode)) return bankCode;
  if (!/^\d{3}$/.test(bankCode)) throw new RangeError(`bankCode must be 3 digits, got ${JSON.stringify(bankCode)}`);
  const sum = [...bankCode].reverse().reduce((s, ch, i) => s + Number(ch) * (i + 2), 0);
  const dv = 11 - (sum % 11);
  return `${bankCode}-${dv >= 10 ? 0 : dv}`;
}
