/**
 * A certificate's facts from our records, and the status of its enrolment: what the PDF prints and
 * what the public verify route (GET /receipts/verify, kind CERTIFICATE) recomputes the digest from.
 */
import { Certificate, Enrolment, Merchant } from '../../../db/models';
import type { CertificateFacts } from '../../../core/receipts/certificate';

export interface LoadedCertificate {
  facts: CertificateFacts;
  enrolmentStatus: 'ACTIVE' | 'REVOKED';
  revokedAt: Date | null;
}

export type LoadCertificate = (certificateId: string) => Promise<LoadedCertificate | null>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const loadCertificateFacts: LoadCertificate = async (certificateId) => {
  if (!UUID.test(certificateId)) return null;
  const certificate = await Certificate.findByPk(certificateId);
  if (!certificate) return null;
  const [enrolment, merchant] = await Promise.all([
    Enrolment.findByPk(certificate.enrolmentId),
    Merchant.findByPk(certificate.merchantId),
  ]);
  if (!enrolment || !merchant) return null;
  return {
    facts: {
      certificateId: certificate.id,
      enrolmentId: enrolment.id,
      studentName: certificate.studentName,
      studentDocument: enrolment.studentDocument,
      courseTitle: certificate.courseTitle,
      merchantId: merchant.id,
      merchantName: merchant.name,
      issuedAt: certificate.issuedAt.toISOString(),
    },
    enrolmentStatus: enrolment.status,
    revokedAt: enrolment.revokedAt ?? null,
  };
};
