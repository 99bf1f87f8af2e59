import crypto from 'node:crypto';
import { documentType, isValidCnpj, isValidCpf } from '../../core/documents';
import { decryptSecret, encryptSecret, parseKey, safeEqual } from '../../core/crypto/secretBox';

describe('CPF and CNPJ', () => {
  it('accepts valid check digits, with or without punctuation', () => {
    expect(isValidCpf('529.982.247-25')).toBe(true);
    expect(isValidCnpj('11.222.333/0001-81')).toBe(true);
    expect(documentType('11144477735')).toBe('CPF');
    expect(documentType('11222333000181')).toBe('CNPJ');
  });

  it('refuses wrong check digits, repeated digits and wrong lengths', () => {
    expect(isValidCpf('52998224724')).toBe(false);
    expect(isValidCpf('11111111111')).toBe(false);
    expect(isValidCnpj('11222333000182')).toBe(false);
    expect(documentType('123')).toBeNull();
  });
});

describe('secretBox', () => {
  const key = parseKey(crypto.randomBytes(32).toString('hex'));

  it('round-trips and never stores the plain text', () => {
    const box = encryptSecret('sk_live_abc', key);
    expect(box).not.toContain('sk_live_abc');
    expect(decryptSecret(box, key)).toBe('sk_live_abc');
  });

  it('detects tampering and a wrong key', () => {
    const box = encryptSecret('sk_live_abc', key);
    const parts = box.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => decryptSecret(parts.join('.'), key)).toThrow();
    expect(() => decryptSecret(box, parseKey(crypto.randomBytes(32).toString('base64')))).toThrow();
  });

  it('refuses keys of the wrong size', () => {
    expect(() => parseKey('abcd')).toThrow(/32 bytes/);
  });

  it('compares strings in constant time', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});
