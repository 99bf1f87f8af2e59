/** Enrolment rows → answers (schema.ts). The student's document is masked as receipts mask it. */
import { maskReceiptDocument } from '../../../core/receipts/masking';
import type { Enrolment } from '../../../db/marketplace';
import type { EnrolmentView } from './schema';

export interface Progress {
  completedLessons: number;
  totalLessons: number;
  percentage: number;
}

export function progressOf(completedLessons: number, totalLessons: number): Progress {
  return {
    completedLessons,
    totalLessons,
    percentage: totalLessons === 0 ? 0 : Math.min(100, Math.floor((100 * completedLessons) / totalLessons)),
  };
}

export function presentEnrolment(
  e: Enrolment,
  progress: Progress,
  certificate: EnrolmentView['certificate'],
): EnrolmentView {
  return {
    id: e.id,
    merchantId: e.merchantId,
    courseId: e.courseId,
    checkoutId: e.checkoutId ? `bill_${e.checkoutId}` : null,
    subscriptionId: e.subscriptionId ?? null,
    status: e.status,
    student: { name: e.studentName, document: maskReceiptDocument(e.studentDocument) },
    progress,
    certificate,
    revokedAt: e.revokedAt ? e.revokedAt.toISOString() : null,
    revokedReason: e.revokedReason ?? null,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}
