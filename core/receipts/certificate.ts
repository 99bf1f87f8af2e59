/**
 * What a course certificate states, and the digest its verification code carries (the same codes
 * and the same public verify route as receipts: verificationCode.ts, kind CERTIFICATE). Raw values
 * here; the student's document enters the digest masked, as the verify route shows it. Revocation
 * does not enter the digest: a revoked certificate is still ours (authentic) but no longer valid,
 * which the verify route says from the enrolment's current status. Pure.
 */
import crypto from 'node:crypto';
import { maskReceiptDocument } from './masking';

export interface CertificateFacts {
  certificateId: string;
  enrolmentId: string;
  studentName: string | null;
  /** CPF or CNPJ digits, from the Pix payer; null when unknown. */
  studentDocument: string | null;
  courseTitle: string;
  merchantId: string;
  merchantName: string;
  /** ISO 8601 instant the certificate was issued. */
  issuedAt: string;
}

export function certificateDigest(facts: CertificateFacts): string {
  const issuedAt = new Date(facts.issuedAt);
  if (Number.isNaN(issuedAt.getTime())) throw new RangeError('issuedAt is not a valid date');
  const canonical = JSON.stringify([
    'certificate-digest-v1',
    facts.certificateId,
    facts.enrolmentId,
    facts.studentName,
    maskReceiptDocument(facts.studentDocument),
    facts.courseTitle,
    facts.merchantId,
    facts.merchantName,
    issuedAt.toISOString(),
  ]);
  return crypto.createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/** "2026-03-01T02:05:09Z" → "28/02/2026": the issue date as printed, in America/Sao_Paulo. */
export function formatDateBrasilia(iso: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: 'America/Sao_Paulo',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(new Date(iso));
  const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('day')}/${get('month')}/${get('year')}`;
}
