/**
 * Test-only: a valid FEBRABAN boleto barcode and digitable line built from scratch, independent of
 * the gateway's own boleto code (tests check the result against @mrmgomes/boleto-utils too).
 *   barcode: bank(3) currency(1) DV(1) factor(4) amount(10) free field(25)
 *   line:    bank+currency+free[0..5)+dv10 | free[5..15)+dv10 | free[15..25)+dv10 | DV | factor+amount
 */

function mod10(digits: string): number {
  let sum = 0;
  [...digits].reverse().forEach((ch, i) => {
    const p = Number(ch) * (i % 2 === 0 ? 2 : 1);
    sum += p > 9 ? p - 9 : p;
  });
  return (10 - (sum % 10)) % 10;
}

function mod11General(digits: string): number {
  let sum = 0;
  [...digits].reverse().forEach((ch, i) => (sum += Number(ch) * (2 + (i % 8))));
  const dv = 11 - (sum % 11);
  return dv === 0 || dv === 10 || dv === 11 ? 1 : dv;
}

/** Days since 1997-10-07, wrapping from 9999 back to 1000 on 2025-02-22. */
export function dueDateFactor(isoDate: string): number {
  const days = Math.round((Date.parse(`${isoDate}T00:00:00Z`) - Date.parse('1997-10-07T00:00:00Z')) / 86_400_000);
  if (days < 1000) throw new RangeError('due date before 2000-07-03');
  return ((days - 1000) % 9000) + 1000;
}

export function buildBoletoNumbers(opts: {
  bankCode: string;
  dueDate: string;
  amountCents: number;
  freeField: string;
}): { barcode: string; digitableLine: string } {
  const { bankCode, dueDate, amountCents, freeField } = opts;
  if (!/^\d{3}$/.test(bankCode) || !/^\d{25}$/.test(freeField)) throw new RangeError('bad bank code or free field');
  const tail = String(dueDateFactor(dueDate)).padStart(4, '0') + String(amountCents).padStart(10, '0');
  const head = `${bankCode}9`;
  const dv = mod11General(head + tail + freeField);
  const barcode = `${head}${dv}${tail}${freeField}`;
  const f1 = head + freeField.slice(0, 5);
  const f2 = freeField.slice(5, 15);
  const f3 = freeField.slice(15, 25);
  const digitableLine = `${f1}${mod10(f1)}${f2}${mod10(f2)}${f3}${mod10(f3)}${dv}${tail}`;
  return { barcode, digitableLine };
}
