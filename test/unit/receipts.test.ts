/**
 * Receipts, pure parts: how personal data is masked, and the verification code (opaque, signed,
 * bound to the facts). The PDF itself is read back with poppler and zbar in
 * test/integration/receiptVerify.test.ts.
 */
import crypto from 'node:crypto';
import type { ReceiptFacts } from '../../core/receipts/facts';
import { formatDateTimeBrasilia } from '../../core/receipts/format';
import { maskAccount, maskParty, maskReceiptDocument, maskReceiptPixKey } from '../../core/receipts/masking';
import {
  createVerificationCode,
  deriveReceiptKey,
  digestMatches,
  receiptDigest,
  receiptKeyFor,
  receiptVerifyUrl,
  verifyVerificationCode,
} from '../../core/receipts/verificationCode';
import { verifyPage } from '../../api/receipts/verifyPage';

const facts: ReceiptFacts = {
  kind: 'CHARGE',
  documentId: '0b7c3c1e-1234-4abc-8def-0123456789ab',
  amountCents: 123456,
  feeCents: null,
  occurredAt: '2026-03-01T13:05:09.000Z',
  endToEndId: 'E99999999202603011305ABCDEFGHIJK',
  txid: 'TX123',
  description: 'Pedido 1001',
  payer: {
    name: 'Conceição Ação',
    document: '52998224725',
    institution: 'Banco Sandbox',
    ispb: '99999999',
    agency: '0001',
    account: '1234567-8',
    pixKey: null,
  },
  receiver: {
    name: 'Loja Exemplo Comércio Ltda',
    document: '11222333000181',
    institution: 'Gateway Pagamentos IP',
    ispb: null,
    agency: '0001',
    account: null,
    pixKey: null,
  },
  refunds: [],
};
const key = deriveReceiptKey('k'.repeat(32));

describe('masking', () => {
  test('CPF as banks print it, CNPJ in full, anything else starred', () => {
    expect(maskReceiptDocument('52998224725')).toBe('***.982.247-**');
    expect(maskReceiptDocument('529.982.247-25')).toBe('***.982.247-**');
    expect(maskReceiptDocument('11222333000181')).toBe('11.222.333/0001-81');
    expect(maskReceiptDocument('12345')).toBe('*****');
    expect(maskReceiptDocument(null)).toBeNull();
  });

  test('Pix keys by kind, accounts by their last 4 characters', () => {
    expect(maskReceiptPixKey('52998224725')).toBe('***.982.247-**');
    expect(maskReceiptPixKey('11222333000181')).toBe('11.222.333/0001-81');
    expect(maskReceiptPixKey('joao.silva@example.com')).toBe('jo********@example.com');
    expect(maskReceiptPixKey('+5511987654321')).toBe('+5511*****4321');
    expect(maskReceiptPixKey('123e4567-e89b-42d3-a456-426614174000')).toBe('123e4567************************4000');
    expect(maskAccount('1234567-8')).toBe('*****67-8');
    expect(maskParty(facts.payer)).toMatchObject({
      name: 'Conceição Ação',
      document: '***.982.247-**',
      documentType: 'CPF',
      account: '*****67-8',
      agency: '0001',
    });
  });

  test('date and time in Brasília', () => {
    expect(formatDateTimeBrasilia('2026-03-01T13:05:09Z')).toBe('01/03/2026 às 10:05:09');
    expect(formatDateTimeBrasilia('2026-03-01T02:00:00Z')).toBe('28/02/2026 às 23:00:00');
  });
});

describe('verification code', () => {
  test('opens with the key it was made with, naming the document and the digest of its facts', () => {
    const code = createVerificationCode(facts, key);
    expect(code).toMatch(/^[A-Za-z0-9_-]{100,110}$/);
    const opened = verifyVerificationCode(code, key);
    expect(opened).toEqual({ ok: true, kind: 'CHARGE', documentId: facts.documentId, digest: receiptDigest(facts) });
    expect(opened.ok && digestMatches(facts, opened.digest)).toBe(true);
  });

  test('unguessable: two codes for one document differ and neither shows the id', () => {
    const a = createVerificationCode(facts, key);
    const b = createVerificationCode(facts, key);
    expect(a).not.toBe(b);
    const rawId = Buffer.from(facts.documentId.replace(/-/g, ''), 'hex');
    for (const code of [a, b]) {
      expect(code).not.toContain(facts.documentId);
      expect(Buffer.from(code, 'base64url').includes(rawId)).toBe(false);
      expect(Buffer.from(code, 'base64url').includes(Buffer.from(receiptDigest(facts), 'hex'))).toBe(false);
    }
  });

  test('any one byte changed → not ok', () => {
    const raw = Buffer.from(createVerificationCode(facts, key), 'base64url');
    for (let i = 0; i < raw.length; i++) {
      const tampered = Buffer.from(raw);
      tampered[i] ^= 0x01;
      expect(verifyVerificationCode(tampered.toString('base64url'), key)).toEqual({ ok: false });
    }
  });

  test('another key → not ok; a non-canonical, truncated, empty or non-string code → not ok, never a throw', () => {
    const code = createVerificationCode(facts, key);
    expect(verifyVerificationCode(code, deriveReceiptKey('another-key-0123456789abcdef0123456789'))).toEqual({
      ok: false,
    });
    expect(verifyVerificationCode(code, crypto.randomBytes(32))).toEqual({ ok: false });
    for (const bad of [
      '',
      'abc',
      code.slice(0, -4),
      `${code}A`,
      `${code}==`,
      code.replace(/[A-Za-z]/, '+'),
      'x'.repeat(5000),
      undefined,
      null,
      42,
      [code],
      { code },
    ]) {
      expect(verifyVerificationCode(bad, key)).toEqual({ ok: false });
    }
  });

  test('the digest follows the key facts and the masked parties, not refunds or unmasked digits', () => {
    const d = receiptDigest(facts);
    expect(receiptDigest({ ...facts, amountCents: 123457 })).not.toBe(d);
    expect(receiptDigest({ ...facts, occurredAt: '2026-03-01T13:05:10.000Z' })).not.toBe(d);
    expect(receiptDigest({ ...facts, endToEndId: 'E99999999202603011305ABCDEFGHIJL' })).not.toBe(d);
    expect(receiptDigest({ ...facts, payer: { ...facts.payer!, name: 'Outra Pessoa' } })).not.toBe(d);
    expect(receiptDigest({ ...facts, receiver: { ...facts.receiver!, document: '11444777000161' } })).not.toBe(d);
    expect(receiptDigest({ ...facts, occurredAt: '2026-03-01T10:05:09-03:00' })).toBe(d); // the same instant
    expect(receiptDigest({ ...facts, refunds: [{ amountCents: 100, at: '2026-03-02T00:00:00Z' }] })).toBe(d);
    expect(digestMatches(facts, 'not-hex')).toBe(false);
  });

  test('ids that are not UUIDs round-trip too; the key derivation separates secrets', () => {
    const other = { ...facts, kind: 'PAYOUT_ITEM' as const, documentId: 'item-42' };
    expect(verifyVerificationCode(createVerificationCode(other, key), key)).toMatchObject({
      ok: true,
      kind: 'PAYOUT_ITEM',
      documentId: 'item-42',
    });
    const enc = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
    expect(receiptKeyFor({ credentialsEncryptionKey: enc })).toHaveLength(32);
    expect(
      receiptKeyFor({ credentialsEncryptionKey: enc }).equals(
        receiptKeyFor({ receiptSigningKey: 'r'.repeat(32), credentialsEncryptionKey: enc }),
      ),
    ).toBe(false);
    expect(
      receiptKeyFor({ receiptSigningKey: '', credentialsEncryptionKey: enc }).equals(
        receiptKeyFor({ credentialsEncryptionKey: enc }),
      ),
    ).toBe(true);
    expect(receiptVerifyUrl('https://api.example.com/', 'abc')).toBe(
      'https://api.example.com/receipts/verify?code=abc',
    );
  });
});

describe('verify page', () => {
  test('escapes every value', () => {
    const html = verifyPage({
      authentic: true,
      kind: 'CHARGE',
      amountCents: 100,
      occurredAt: '2026-03-01T13:05:09.000Z',
      endToEndId: null,
      payer: { name: '<script>alert("x")</script>', document: null },
      receiver: { name: "O'Brien & Cia", document: '11.222.333/0001-81' },
      refunds: [],
    });
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('O&#39;Brien &amp; Cia');
    expect(verifyPage({ authentic: false })).toContain('Comprovante não autêntico');
  });
});
