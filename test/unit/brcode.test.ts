import { hasError, isStaticPix, parsePix } from 'pix-utils';
import {
  STATIC_REFERENCE_LABEL_MAX,
  buildPixBrCode,
  crc16ccitt,
  generateEndToEndId,
  generateTxid,
  hasValidCrc,
  isValidEndToEndId,
  isValidTxid,
} from '../../core/pix/brcode';

const input = {
  pixKey: '11222333000181',
  merchantName: 'Loja São João',
  merchantCity: 'São Paulo',
  amountCents: 12345,
  txid: 'abcDEF0123456789abcDEF0123456789',
};

describe('crc16ccitt', () => {
  it('matches the CRC-16/CCITT-FALSE check value', () => {
    expect(crc16ccitt('123456789')).toBe('29B1');
  });

  it('pads to 4 upper-case hex digits', () => {
    expect(crc16ccitt('')).toBe('FFFF');
    expect(crc16ccitt('any text')).toMatch(/^[0-9A-F]{4}$/);
  });
});

describe('buildPixBrCode', () => {
  const code = buildPixBrCode(input);

  it('parses back as a valid static Pix with amount, key and reference label', () => {
    const parsed = parsePix(code);
    if (hasError(parsed)) throw new Error(parsed.message);
    expect(isStaticPix(parsed)).toBe(true);
    if (!isStaticPix(parsed)) return;
    expect(parsed.transactionAmount).toBe(123.45);
    expect(parsed.pixKey).toBe(input.pixKey);
    expect(parsed.merchantName).toBe('LOJA SAO JOAO');
    expect(parsed.merchantCity).toBe('SAO PAULO');
    // 62/05 is capped at 25 chars for static codes: it carries the txid's prefix...
    expect(parsed.txid).toBe(input.txid.slice(0, STATIC_REFERENCE_LABEL_MAX));
    // ...and the full txid travels in 26/02.
    expect(parsed.infoAdicional).toBe(`TXID ${input.txid}`);
  });

  it('ends with a valid CRC16 in field 63', () => {
    expect(code).toMatch(/6304[0-9A-F]{4}$/);
    expect(hasValidCrc(code)).toBe(true);
    expect(crc16ccitt(code.slice(0, -4))).toBe(code.slice(-4));
  });

  it('detects a corrupted code', () => {
    const tampered = code.replace('123.45', '923.45');
    expect(hasValidCrc(tampered)).toBe(false);
    expect(hasError(parsePix(tampered))).toBe(true);
  });

  it('is pure ASCII, so EMV lengths and CRC bytes agree', () => {
    expect(code).toMatch(/^[\x20-\x7e]+$/);
    expect(code.startsWith('000201')).toBe(true);
  });

  it('drops the info text rather than overflow field 26 with a long key', () => {
    const longKey = '123e4567-e89b-12d3-a456-426614174000' + 'x'.repeat(20);
    const parsed = parsePix(buildPixBrCode({ ...input, pixKey: longKey }));
    if (hasError(parsed) || !isStaticPix(parsed)) throw new Error('did not parse');
    expect(parsed.pixKey).toBe(longKey);
    expect(parsed.infoAdicional).toBeFalsy();
  });

  it('refuses bad input', () => {
    expect(() => buildPixBrCode({ ...input, txid: 'short' })).toThrow(RangeError);
    expect(() => buildPixBrCode({ ...input, amountCents: 0 })).toThrow(RangeError);
    expect(() => buildPixBrCode({ ...input, amountCents: 1.5 })).toThrow(RangeError);
    expect(() => buildPixBrCode({ ...input, merchantCity: '' })).toThrow(/merchantCity/);
  });
});

describe('generateTxid', () => {
  it('yields 26..35 alphanumerics, 32 by default, unique', () => {
    const ids = new Set(Array.from({ length: 200 }, () => generateTxid()));
    expect(ids.size).toBe(200);
    for (const id of ids) {
      expect(id).toMatch(/^[a-zA-Z0-9]{32}$/);
      expect(isValidTxid(id)).toBe(true);
    }
    expect(generateTxid(26)).toHaveLength(26);
    expect(generateTxid(35)).toHaveLength(35);
  });

  it('rejects lengths outside 26..35', () => {
    expect(() => generateTxid(25)).toThrow(RangeError);
    expect(() => generateTxid(36)).toThrow(RangeError);
  });
});

describe('generateEndToEndId', () => {
  it('is E + ISPB + yyyyMMddHHmm (UTC) + 11 alphanumerics = 32 chars', () => {
    // 23:59 in UTC is already the next day in some zones and the previous one in others.
    const e2e = generateEndToEndId('99999999', new Date('2024-02-29T23:59:30.000Z'));
    expect(e2e).toHaveLength(32);
    expect(e2e).toMatch(/^E99999999202402292359[a-zA-Z0-9]{11}$/);
    expect(isValidEndToEndId(e2e)).toBe(true);
  });

  it('rejects a malformed ISPB or date', () => {
    expect(() => generateEndToEndId('1234567', new Date())).toThrow(RangeError);
    expect(() => generateEndToEndId('1234567a', new Date())).toThrow(RangeError);
    expect(() => generateEndToEndId('12345678', new Date('nope'))).toThrow(RangeError);
  });

  it('isValidEndToEndId rejects wrong shapes', () => {
    expect(isValidEndToEndId('E9999999920240229235')).toBe(false);
    expect(isValidEndToEndId('X99999999202402292359abcdefghijk')).toBe(false);
    expect(isValidEndToEndId('E99999999202402292359abcdefghij!')).toBe(false);
  });
});
