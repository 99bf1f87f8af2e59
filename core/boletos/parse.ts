/**
 * Reads a code a person typed or scanned: a digitable line (47 digits; dots, spaces and dashes
 * allowed) or a barcode (44 digits). Never throws on user input: it says what is wrong, per
 * check digit, so a caller can answer "the second field's check digit is wrong".
 */
import { barcodeToDigitableLine, digitableLineToBarcode, expectedGeneralDv } from './barcode';
import { mod10 } from './checkDigits';
import { isoDateOf } from './dates';
import { dueDateFromFactor } from './dueDateFactor';

export type BoletoCodeErrorField =
  'length' | 'format' | 'type' | 'currency' | 'field1' | 'field2' | 'field3' | 'general';

export interface BoletoCodeError {
  field: BoletoCodeErrorField;
  message: string;
}

export interface ParsedBoletoCode {
  kind: 'DIGITABLE_LINE' | 'BARCODE' | null;
  /** Null when the input is not 44/47 digits of a bank boleto. */
  barcode: string | null;
  /** Rebuilt with correct field DVs when the input was a barcode. */
  digitableLine: string | null;
  bankCode: string | null;
  currency: string | null;
  /** 'YYYY-MM-DD', null when the factor is 0000 (no due date) or the code unreadable. */
  dueDate: string | null;
  dueDateFactor: string | null;
  amountCents: number | null;
  valid: boolean;
  errors: BoletoCodeError[];
}

const FIELDS = [
  { field: 'field1', body: [0, 9], dv: 9 },
  { field: 'field2', body: [10, 20], dv: 20 },
  { field: 'field3', body: [21, 31], dv: 31 },
] as const;

/** `referenceDate` ('YYYY-MM-DD', today by default) picks the factor's cycle, as banks do. */
export function parseBoletoCode(code: string, referenceDate: string = isoDateOf(new Date())): ParsedBoletoCode {
  const empty: ParsedBoletoCode = {
    kind: null,
    barcode: null,
    digitableLine: null,
    bankCode: null,
    currency: null,
    dueDate: null,
    dueDateFactor: null,
    amountCents: null,
    valid: false,
    errors: [],
  };
  if (typeof code !== 'string' || /[^\d\s.-]/.test(code)) {
    return { ...empty, errors: [{ field: 'format', message: 'only digits, spaces, dots and dashes are allowed' }] };
  }
  const digits = code.replace(/\D/g, '');
  if (digits.length !== 44 && digits.length !== 47) {
    const hint = digits.length === 48 ? ' (48 digits is a utility/tax bill, arrecadação, not a bank boleto)' : '';
    return {
      ...empty,
      errors: [
        {
          field: 'length',
          message: `expected 47 digits (digitable line) or 44 (barcode), got ${digits.length}${hint}`,
        },
      ],
    };
  }
  if (digits[0] === '8') {
    return {
      ...empty,
      errors: [
        { field: 'type', message: 'a code starting with 8 is a utility/tax bill (arrecadação), not a bank boleto' },
      ],
    };
  }

  const errors: BoletoCodeError[] = [];
  const kind = digits.length === 47 ? 'DIGITABLE_LINE' : 'BARCODE';
  if (kind === 'DIGITABLE_LINE') {
    FIELDS.forEach(({ field, body, dv }, i) => {
      const expected = mod10(digits.slice(body[0], body[1]));
      if (Number(digits[dv]) !== expected) {
        errors.push({ field, message: `check digit of field ${i + 1} is ${digits[dv]}, expected ${expected}` });
      }
    });
  }
  const barcode = kind === 'BARCODE' ? digits : digitableLineToBarcode(digits);
  const generalDv = expectedGeneralDv(barcode);
  if (Number(barcode[4]) !== generalDv) {
    errors.push({ field: 'general', message: `general check digit is ${barcode[4]}, expected ${generalDv}` });
  }
  if (barcode[3] !== '9')
    errors.push({ field: 'currency', message: `currency code is ${barcode[3]}, expected 9 (real)` });

  const factor = barcode.slice(5, 9);
  return {
    kind,
    barcode,
    // From a barcode the line is rebuilt, so its field DVs are right by construction.
    digitableLine: kind === 'DIGITABLE_LINE' ? digits : barcodeToDigitableLine(barcode),
    bankCode: barcode.slice(0, 3),
    currency: barcode[3],
    dueDate: dueDateFromFactor(factor, referenceDate),
    dueDateFactor: factor,
    amountCents: Number(barcode.slice(9, 19)),
    valid: errors.length === 0,
    errors,
  };
}
