/**
 * The pure pieces of the API Pix client: ids derived from ours (a retried create is the same
 * cob), money as the standard writes it, and Retry-After.
 */
import crypto from 'node:crypto';
import { chargeIdOfTxid, devolucaoIdFor, refundIdOfDevolucaoId, txidFor } from '../../core/pix/apiPixIds';
import { centsToPixAmount, isPixAmount, MAX_PIX_AMOUNT_CENTS, pixAmountToCents } from '../../core/pix/pixAmount';
import { retryAfterMs } from '../../core/net/retryAfter';

describe('txidFor', () => {
  it('is the same txid every time for a charge, 32 alphanumerics (inside 26..35)', () => {
    const chargeId = crypto.randomUUID();
    expect(txidFor(chargeId)).toBe(txidFor(chargeId));
    expect(txidFor(chargeId)).toMatch(/^[a-zA-Z0-9]{26,35}$/);
    expect(txidFor(chargeId)).toHaveLength(32);
  });

  it('names the charge back, whatever the case the id was written in', () => {
    const chargeId = crypto.randomUUID();
    expect(chargeIdOfTxid(txidFor(chargeId))).toBe(chargeId);
    expect(txidFor(chargeId.toUpperCase())).toBe(txidFor(chargeId));
  });

  it('gives different charges different txids', () => {
    const ids = Array.from({ length: 10_000 }, () => crypto.randomUUID());
    expect(new Set(ids.map(txidFor)).size).toBe(ids.length);
    // Ids one hex digit apart still differ: the mapping keeps every digit.
    expect(txidFor('00000000-0000-4000-8000-000000000000')).not.toBe(txidFor('00000000-0000-4000-8000-000000000001'));
  });

  it.each([
    '',
    'sbx_ch_123',
    '12345678-1234-1234-1234-1234567890',
    `${crypto.randomUUID()}x`,
    ' 00000000-0000-4000-8000-000000000000',
  ])('refuses %p, which is no charge id', (value) => {
    expect(() => txidFor(value)).toThrow(RangeError);
  });

  it('reads a txid that is not of our shape as not ours', () => {
    expect(chargeIdOfTxid('ABCDEFGHIJKLMNOPQRSTUVWXYZ123456')).toBeNull();
    expect(chargeIdOfTxid('0123456789abcdef0123456789abcdef0')).toBeNull();
  });
});

describe('devolucaoIdFor', () => {
  it('is stable, inside the standard’s 1..35 alphanumerics, and names the refund back', () => {
    const refundId = crypto.randomUUID();
    expect(devolucaoIdFor(refundId)).toBe(devolucaoIdFor(refundId));
    expect(devolucaoIdFor(refundId)).toMatch(/^[a-zA-Z0-9]{1,35}$/);
    expect(refundIdOfDevolucaoId(devolucaoIdFor(refundId))).toBe(refundId);
    expect(() => devolucaoIdFor('refund-1')).toThrow(RangeError);
  });
});

describe('API Pix amounts', () => {
  it.each([
    [1, '0.01'],
    [10, '0.10'],
    [100, '1.00'],
    [1234, '12.34'],
    [0, '0.00'],
    [MAX_PIX_AMOUNT_CENTS, '9999999999.99'],
  ])('%p cents ↔ %p', (cents, text) => {
    expect(centsToPixAmount(cents)).toBe(text);
    expect(pixAmountToCents(text)).toBe(cents);
    expect(isPixAmount(text)).toBe(true);
  });

  it.each([[1.5], [-1], [Number.NaN], [MAX_PIX_AMOUNT_CENTS + 1], [Number.MAX_SAFE_INTEGER + 2]])(
    'refuses %p cents',
    (cents) => {
      expect(() => centsToPixAmount(cents)).toThrow(RangeError);
    },
  );

  it.each([
    '12.3',
    '12.345',
    '12,34',
    '12',
    '-1.00',
    '+1.00',
    ' 1.00',
    '1.00 ',
    '1e2',
    '.50',
    '12345678901.00',
    'x12.34',
    '',
  ])('refuses %p, which is not how the standard writes money', (text) => {
    expect(() => pixAmountToCents(text)).toThrow(RangeError);
    expect(isPixAmount(text)).toBe(false);
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');

  it('reads delay-seconds', () => {
    expect(retryAfterMs('120', now)).toBe(120_000);
    expect(retryAfterMs(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP-date, from now, and a past date as "now"', () => {
    expect(retryAfterMs('Sun, 01 Mar 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Sunday, 01-Mar-26 12:01:00 GMT', now)).toBe(60_000);
    expect(retryAfterMs('Sun, 01 Mar 2026 11:00:00 GMT', now)).toBe(0);
  });

  it.each([[undefined], [null], [''], ['-5'], ['1.5'], ['soon'], ['2026-03-01T12:00:30Z']])(
    'gives no delay for %p',
    (value) => {
      expect(retryAfterMs(value, now)).toBeNull();
    },
  );
});
