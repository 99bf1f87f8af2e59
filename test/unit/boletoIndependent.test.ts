/**
 * Every code we build must pass validators we did not write:
 *  - @brazilian-utils/brazilian-utils: isValidBoleto checks the three field DVs and the general
 *    DV of a digitable line; getBoletoInfo reads amount and due date, with its own handling of
 *    the 2025-02-22 factor reset (a referenceDate picks the cycle).
 *  - boleto-brasileiro-validator: the 44-digit barcode's general DV and the line's field DVs.
 * Not @mrmgomes/boleto-utils: its calculaMod11 answers 0 for remainders 0 and 1, where
 * FEBRABAN's bank-boleto rule gives 1, so it rejects about 2 in 11 correct barcodes.
 */
import { getBoletoInfo, isValidBoleto } from '@brazilian-utils/brazilian-utils';
import { boletoBancarioCodigoBarras, boletoBancarioLinhaDigitavel } from 'boleto-brasileiro-validator';
import {
  addDays,
  barcodeToDigitableLine,
  buildBarcode,
  buildSandboxFreeField,
  formatDigitableLine,
  parseBoletoCode,
  SANDBOX_ACCOUNT,
  SANDBOX_AGENCY,
  SANDBOX_BANK_CODE,
  sandboxNossoNumero,
} from '../../core/boletos';

function localIsoDate(d: Date): string {
  // getBoletoInfo builds local-time dates (new Date(y, m, d)).
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

function localDate(iso: string): Date {
  const [y, m, d] = iso.split('-').map(Number);
  return new Date(y, m - 1, d);
}

const AMOUNTS = [1, 9, 10, 99, 100, 2_500, 12_345, 102_656, 999_999, 1_000_000, 123_456_789, 9_999_999_999];

describe('independent validators accept what we build', () => {
  it('across due dates before and after 2025-02-22 and many amounts', () => {
    let checked = 0;
    const generalDvs = new Set<string>();
    // Every day from 2024-11-01 to 2025-06-01 (around the reset), then every 7th day until 2030.
    const dates: string[] = [];
    for (let d = '2024-11-01'; d <= '2025-06-01'; d = addDays(d, 1)) dates.push(d);
    for (let d = '2025-06-02'; d <= '2030-12-31'; d = addDays(d, 7)) dates.push(d);
    dates.push('2010-11-17', '2000-07-03', '2049-10-13', '2049-10-14');

    dates.forEach((dueDate, i) => {
      const amountCents = AMOUNTS[i % AMOUNTS.length] + i; // vary the amount digits too
      const freeField = buildSandboxFreeField({
        nossoNumero: sandboxNossoNumero(i * 7919 + 1),
        agency: SANDBOX_AGENCY,
        account: SANDBOX_ACCOUNT,
      });
      const barcode = buildBarcode({
        bankCode: SANDBOX_BANK_CODE,
        dueDate,
        amountCents: Math.min(amountCents, 9_999_999_999),
        freeField,
      });
      const line = barcodeToDigitableLine(barcode);
      generalDvs.add(barcode[4]);

      expect(isValidBoleto(line)).toBe(true);
      expect(isValidBoleto(formatDigitableLine(line))).toBe(true);
      expect(boletoBancarioCodigoBarras(barcode)).toBe(true);
      expect(boletoBancarioLinhaDigitavel(line, true)).toBe(true);

      const info = getBoletoInfo(line, { referenceDate: localDate(dueDate) });
      expect(info).not.toBeNull();
      expect(info!.amount).toBe(Math.min(amountCents, 9_999_999_999));
      expect(info!.bankCode).toBe(SANDBOX_BANK_CODE);
      expect(localIsoDate(info!.expirationDate!)).toBe(dueDate);
      // And our own reader agrees.
      expect(parseBoletoCode(line, dueDate)).toMatchObject({ valid: true, dueDate, barcode });
      checked++;
    });
    expect(checked).toBeGreaterThan(400);
    // The DV 1 that stands for remainders 0, 1 and 10 came up, so that rule was exercised.
    expect(generalDvs.has('1')).toBe(true);
  });

  it('the independent validators reject what our parser rejects', () => {
    const freeField = buildSandboxFreeField({
      nossoNumero: sandboxNossoNumero(5),
      agency: SANDBOX_AGENCY,
      account: SANDBOX_ACCOUNT,
    });
    const line = barcodeToDigitableLine(
      buildBarcode({ bankCode: SANDBOX_BANK_CODE, dueDate: '2025-02-22', amountCents: 1_000, freeField }),
    );
    for (const index of [3, 9, 15, 20, 27, 31, 32, 40]) {
      const bad = line.slice(0, index) + String((Number(line[index]) + 5) % 10) + line.slice(index + 1);
      expect(parseBoletoCode(bad).valid).toBe(false);
      expect(isValidBoleto(bad)).toBe(false);
      expect(boletoBancarioLinhaDigitavel(bad, true)).toBe(false);
    }
  });
});
