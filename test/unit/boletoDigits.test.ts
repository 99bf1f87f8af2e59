import {
  barcodeToDigitableLine,
  buildBarcode,
  buildSandboxFreeField,
  digitableLineToBarcode,
  formatDigitableLine,
  mod10,
  mod11Barcode,
  parseBoletoCode,
  parseSandboxFreeField,
  sandboxNossoNumero,
} from '../../core/boletos';

// A Banco do Brasil boleto used as an example by @brazilian-utils (due 2018-07-15, R$ 1,026.56).
const KNOWN_LINE = '00190000090114971860168524522114675860000102656';
const KNOWN_BARCODE = '00196758600001026560000001149718606852452211';

/** Changes the digit at `index` to another one. */
function flip(digits: string, index: number): string {
  return digits.slice(0, index) + String((Number(digits[index]) + 1) % 10) + digits.slice(index + 1);
}

describe('boleto check digits', () => {
  it('mod 10 (weights 2,1 from the right, product digits summed)', () => {
    expect(mod10('001900000')).toBe(9);
    expect(mod10('0114971860')).toBe(1);
    expect(mod10('6852452211')).toBe(4);
    expect(mod10('0000000000')).toBe(0);
    expect(mod10('9')).toBe(1); // 18 → 1 + 8 = 9 → 10 − 9
  });

  it('mod 11 general DV: 0, 10 and 11 become 1', () => {
    expect(mod11Barcode(KNOWN_BARCODE.slice(0, 4) + KNOWN_BARCODE.slice(5))).toBe(6);
    // Find inputs whose raw result would be 11 (remainder 0) and 10 (remainder 1).
    const results = new Map<number, string>();
    for (let n = 0; results.size < 2 && n < 10_000; n++) {
      const digits = String(n).padStart(43, '0');
      let sum = 0;
      for (let i = 42, w = 2; i >= 0; i--, w = w === 9 ? 2 : w + 1) sum += Number(digits[i]) * w;
      if (sum % 11 === 0 || sum % 11 === 1) results.set(sum % 11, digits);
    }
    expect(mod11Barcode(results.get(0)!)).toBe(1);
    expect(mod11Barcode(results.get(1)!)).toBe(1);
  });
});

describe('barcode and digitable line', () => {
  it('rebuilds a known boleto exactly', () => {
    const barcode = buildBarcode({
      bankCode: '001',
      currency: '9',
      dueDate: '2018-07-15',
      amountCents: 102656,
      freeField: KNOWN_BARCODE.slice(19),
    });
    expect(barcode).toBe(KNOWN_BARCODE);
    expect(barcodeToDigitableLine(barcode)).toBe(KNOWN_LINE);
    expect(digitableLineToBarcode(KNOWN_LINE)).toBe(KNOWN_BARCODE);
    expect(formatDigitableLine(KNOWN_LINE)).toBe('00190.00009 01149.718601 68524.522114 6 75860000102656');
    expect(digitableLineToBarcode(formatDigitableLine(KNOWN_LINE))).toBe(KNOWN_BARCODE);
  });

  it('puts the factor after the reset in the barcode (2025-02-22 → 1000)', () => {
    const freeField = buildSandboxFreeField({ nossoNumero: sandboxNossoNumero(1), agency: '0001', account: '1234' });
    const before = buildBarcode({ bankCode: '999', dueDate: '2025-02-21', amountCents: 1, freeField });
    const after = buildBarcode({ bankCode: '999', dueDate: '2025-02-22', amountCents: 1, freeField });
    expect(before.slice(5, 19)).toBe('99990000000001');
    expect(after.slice(5, 19)).toBe('10000000000001');
    expect(buildBarcode({ bankCode: '999', dueDate: null, amountCents: 0, freeField }).slice(5, 19)).toBe(
      '0'.repeat(14),
    );
  });

  it('refuses bad parts', () => {
    const freeField = '1'.repeat(25);
    expect(() => buildBarcode({ bankCode: '99', dueDate: '2026-01-01', amountCents: 1, freeField })).toThrow(
      'bankCode',
    );
    expect(() => buildBarcode({ bankCode: '999', dueDate: '2026-01-01', amountCents: 1, freeField: '1' })).toThrow(
      'freeField',
    );
    expect(() =>
      buildBarcode({ bankCode: '999', dueDate: '2026-01-01', amountCents: 10_000_000_000, freeField }),
    ).toThrow('amountCents');
    expect(() => buildBarcode({ bankCode: '999', dueDate: '2026-01-01', amountCents: 1.5, freeField })).toThrow(
      'amountCents',
    );
    expect(() => barcodeToDigitableLine('123')).toThrow('44');
  });

  it('sandbox free field: nosso número (17) + agency (4) + account (4)', () => {
    const ff = buildSandboxFreeField({ nossoNumero: sandboxNossoNumero(42), agency: '0001', account: '1234' });
    expect(ff).toBe('0000000000000004200011234');
    expect(parseSandboxFreeField(ff)).toEqual({ nossoNumero: '00000000000000042', agency: '0001', account: '1234' });
  });
});

describe('parseBoletoCode', () => {
  it('reads a digitable line, formatted or not, and a barcode', () => {
    const expected = {
      barcode: KNOWN_BARCODE,
      digitableLine: KNOWN_LINE,
      bankCode: '001',
      currency: '9',
      dueDate: '2018-07-15',
      dueDateFactor: '7586',
      amountCents: 102656,
      valid: true,
      errors: [],
    };
    expect(parseBoletoCode(KNOWN_LINE, '2018-07-01')).toEqual({ ...expected, kind: 'DIGITABLE_LINE' });
    expect(parseBoletoCode(formatDigitableLine(KNOWN_LINE), '2018-07-01')).toEqual({
      ...expected,
      kind: 'DIGITABLE_LINE',
    });
    expect(parseBoletoCode(KNOWN_BARCODE, '2018-07-01')).toEqual({ ...expected, kind: 'BARCODE' });
  });

  it('reads the due date in the cycle closest to the reference date', () => {
    const freeField = '0'.repeat(25);
    const line = barcodeToDigitableLine(
      buildBarcode({ bankCode: '999', dueDate: '2025-02-23', amountCents: 500, freeField }),
    );
    expect(parseBoletoCode(line, '2025-03-01').dueDate).toBe('2025-02-23');
    expect(parseBoletoCode(line, '2001-01-01').dueDate).toBe('2000-07-04'); // same factor, old cycle
    const noDue = barcodeToDigitableLine(buildBarcode({ bankCode: '999', dueDate: null, amountCents: 0, freeField }));
    expect(parseBoletoCode(noDue)).toMatchObject({ valid: true, dueDate: null, dueDateFactor: '0000', amountCents: 0 });
  });

  it.each([
    ['field1', 3],
    ['field1', 9],
    ['field2', 12],
    ['field2', 20],
    ['field3', 25],
    ['field3', 31],
  ])('names the wrong %s check digit (digit %i changed)', (field, index) => {
    const result = parseBoletoCode(flip(KNOWN_LINE, index), '2018-07-01');
    expect(result.valid).toBe(false);
    // A free-field digit also breaks the general DV; the DV digits themselves break only their own field.
    expect(result.errors.map((e) => e.field)).toContain(field);
    if (index === 9 || index === 20 || index === 31) expect(result.errors.map((e) => e.field)).toEqual([field]);
    expect(result.errors.find((e) => e.field === field)!.message).toMatch(/check digit of field \d is \d, expected \d/);
  });

  it('names a wrong general check digit, in a line or a barcode', () => {
    expect(parseBoletoCode(flip(KNOWN_LINE, 32), '2018-07-01').errors).toEqual([
      { field: 'general', message: 'general check digit is 7, expected 6' },
    ]);
    // The amount is in no field of the line, so only the general DV catches a changed amount.
    expect(parseBoletoCode(flip(KNOWN_LINE, 46), '2018-07-01').errors.map((e) => e.field)).toEqual(['general']);
    expect(parseBoletoCode(flip(KNOWN_BARCODE, 4), '2018-07-01').errors.map((e) => e.field)).toEqual(['general']);
    expect(parseBoletoCode(flip(KNOWN_BARCODE, 30), '2018-07-01').errors.map((e) => e.field)).toEqual(['general']);
  });

  it('explains wrong lengths, characters and arrecadação codes', () => {
    expect(parseBoletoCode('123').errors).toEqual([{ field: 'length', message: expect.stringContaining('got 3') }]);
    expect(parseBoletoCode('8'.repeat(48)).errors[0].message).toContain('arrecadação');
    expect(parseBoletoCode(`8${'1'.repeat(43)}`).errors[0].field).toBe('type');
    expect(parseBoletoCode(`${KNOWN_LINE}x`).errors[0].field).toBe('format');
    expect(parseBoletoCode(`${KNOWN_LINE}x`).valid).toBe(false);
  });
});
