/**
 * The CERTIFICATE kind of verification codes: appended to RECEIPT_KINDS, so the receipt kinds keep
 * their indexes (codes already printed decode as before); a certificate code names the certificate
 * and the digest of its facts; what the digest covers; the issue date in Brasília.
 */
import crypto from 'node:crypto';
import { RECEIPT_KINDS } from '../../core/receipts/facts';
import { certificateDigest, formatDateBrasilia, type CertificateFacts } from '../../core/receipts/certificate';
import {
  deriveReceiptKey,
  hexDigestsEqual,
  sealCode,
  verifyVerificationCode,
} from '../../core/receipts/verificationCode';

const key = deriveReceiptKey('unit test secret');
const facts: CertificateFacts = {
  certificateId: crypto.randomUUID(),
  enrolmentId: crypto.randomUUID(),
  studentName: 'Conceição Ação',
  studentDocument: '52998224725',
  courseTitle: 'Violão para iniciantes',
  merchantId: crypto.randomUUID(),
  merchantName: 'Escola Exemplo',
  issuedAt: '2026-03-01T02:05:09.000Z',
};

it('appends CERTIFICATE after the receipt kinds (their indexes are in every printed code)', () => {
  expect(RECEIPT_KINDS).toEqual(['CHARGE', 'WITHDRAWAL', 'PAYOUT_ITEM', 'CERTIFICATE']);
});

it('a certificate code opens as kind CERTIFICATE with the certificate id and the digest of its facts', () => {
  const code = sealCode('CERTIFICATE', certificateDigest(facts), facts.certificateId, key);
  const opened = verifyVerificationCode(code, key);
  expect(opened).toEqual({
    ok: true,
    kind: 'CERTIFICATE',
    documentId: facts.certificateId,
    digest: certificateDigest(facts),
  });
  expect(code).not.toContain(facts.certificateId.replace(/-/g, ''));
  expect(verifyVerificationCode(code, deriveReceiptKey('another secret'))).toEqual({ ok: false });
});

it('the digest changes with every fact it covers, and the document enters masked', () => {
  const base = certificateDigest(facts);
  for (const change of [
    { studentName: 'Outra Pessoa' },
    { courseTitle: 'Outro curso' },
    { merchantName: 'Outra escola' },
    { issuedAt: '2026-03-02T02:05:09.000Z' },
    { studentDocument: '11144477735' },
  ]) {
    expect(hexDigestsEqual(base, certificateDigest({ ...facts, ...change }))).toBe(false);
  }
  // Same masked CPF (***.982.247-**), same digest: the digest holds only what the verify page shows.
  expect(certificateDigest({ ...facts, studentDocument: '00098224700' })).toBe(base);
  expect(() => sealCode('CERTIFICATE', 'abcd', facts.certificateId, key)).toThrow(RangeError);
});

it('prints the issue date in America/Sao_Paulo', () => {
  expect(formatDateBrasilia('2026-03-01T02:05:09.000Z')).toBe('28/02/2026');
});
