/**
 * A certificate's facts from our records, and the status of its enrolment: what the PDF prints and
 * what the public verify route (GET /receipts/verify, kind CERTIFICATE) recomputes the digest from.
 */
import { merchantStore } from '../../../db/identity';
import { enrolmentStore, type EnrolmentStatus } from '../../../db/marketplace';
import type { CertificateFacts } from '../../../core/receipts/certificate';

export interface LoadedCertificate {
  facts: CertificateFacts;
  /** Anything but ACTIVE (revoked, or a subscription's that lapsed) is not valid now. */
  enrolmentStatus: EnrolmentStatus;
  revokedAt: Date | null;
}

export type LoadCertificate = (certificateId: string) => Promise<LoadedCertificate | null>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const loadCertificateFacts: LoadCertificate = async (certificateId) => {
  if (!UUID.test(certificateId)) return null;
  const certificate = await enrolmentStore.findCertificate(certificateId);
  if (!certificate) return null;
  const [enrolment, merchant] = await Promise.all([
    enrolmentStore.findEnrolment(certificate.enrolmentId),
    merchantStore.findMerchant(certificate.merchantId),
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
