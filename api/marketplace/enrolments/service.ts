/**
 * Enrolments, progress and certificates (application API). Enrolments are created and revoked by
 * the charge lifecycle (activities/checkouts/checkoutEffects.ts); here they are read and progress is
 * recorded. Any member of the enrolment's merchant reads; the roles that write the catalogue
 * (owner, admin, finance) record progress: the producer's platform reports it on the learner's
 * behalf (P0 has no learner accounts). Another merchant's enrolment is 404 ENROLMENT_NOT_FOUND.
 *
 * Completing a lesson locks the enrolment row, so concurrent completions serialise: the one that
 * brings progress to 100 % issues the certificate, exactly once (certificates.enrolment_id is
 * unique too). A certificate, once issued, stays: lessons added later lower the percentage but do
 * not take it back. A REVOKED enrolment records nothing (409 ENROLMENT_REVOKED) and its
 * certificate is unavailable (409 CERTIFICATE_UNAVAILABLE) and verifies as not valid.
 */
import type { Sequelize } from 'sequelize';
import type { MemberRole } from '../../../db/identity';
import { courseStore, enrolmentHasAccess, enrolmentStore, type Enrolment } from '../../../db/marketplace';
import type { Tx } from '../../../db/tx';
import { ANY_ROLE, defaultMerchantOf, requireRole } from '../../identity/auth/roles';
import { ApiError } from '../../errors/apiError';
import { CHARGE_WRITERS } from '../../charges/service';
import { receiptVerifyUrl, sealCode } from '../../../core/receipts/verificationCode';
import { certificateDigest } from '../../../core/receipts/certificate';
import { presentEnrolment, progressOf, type Progress } from './presenter';
import type { ListEnrolmentsQuery } from './schema';
import { loadCertificateFacts } from './certificateFacts';

export const ENROLMENT_READERS = ANY_ROLE;
/** Who records progress: the roles that write the catalogue and create charges. */
export const ENROLMENT_WRITERS: readonly MemberRole[] = CHARGE_WRITERS;

export const enrolmentErrors = {
  notFound: () => new ApiError(404, 'ENROLMENT_NOT_FOUND', 'enrolment not found'),
  lessonNotFound: () => new ApiError(404, 'LESSON_NOT_FOUND', 'lesson not found in this enrolment’s course'),
  revoked: () =>
    new ApiError(
      409,
      'ENROLMENT_REVOKED',
      'the enrolment is REVOKED (its charge was refunded): progress cannot be recorded',
    ),
  withoutAccess: (status: string) =>
    new ApiError(
      409,
      'ENROLMENT_WITHOUT_ACCESS',
      `the enrolment is ${status} (its subscription is not paid up): progress cannot be recorded`,
    ),
  certificateUnavailable: (why: string) => new ApiError(409, 'CERTIFICATE_UNAVAILABLE', why),
};

export interface EnrolmentServiceDeps {
  sequelize: Sequelize;
  /** The receipts' 32-byte verification key (core/receipts/verificationCode.ts receiptKeyFor). */
  verificationKey: Buffer;
  publicBaseUrl: string;
}

export class EnrolmentService {
  constructor(private readonly deps: EnrolmentServiceDeps) {}

  async list(userId: string, query: ListEnrolmentsQuery) {
    const merchantId = query.merchantId ?? (await defaultMerchantOf(userId));
    await requireRole(userId, merchantId, ENROLMENT_READERS);
    const { rows, count } = await enrolmentStore.listEnrolments({
      merchantId,
      courseId: query.courseId,
      status: query.status,
      limit: query.limit,
      offset: query.offset,
    });
    const data = [];
    for (const row of rows) data.push(await this.view(row));
    return {
      data,
      pagination: {
        total: count,
        limit: query.limit,
        offset: query.offset,
        hasMore: query.offset + rows.length < count,
      },
    };
  }

  /** The enrolment, when the caller is a member of its merchant with an allowed role; else 404 (not a member) or 403. */
  async owned(userId: string, enrolmentId: string, allowed: readonly MemberRole[]): Promise<Enrolment> {
    const enrolment = await enrolmentStore.findEnrolment(enrolmentId);
    if (!enrolment) throw enrolmentErrors.notFound();
    try {
      await requireRole(userId, enrolment.merchantId, allowed);
    } catch (err) {
      if ((err as ApiError).code === 'MERCHANT_NOT_FOUND') throw enrolmentErrors.notFound();
      throw err;
    }
    return enrolment;
  }

  async view(enrolment: Enrolment) {
    const progress = await this.progressCounts(enrolment);
    const certificate =
      enrolment.status === 'ACTIVE' ? await enrolmentStore.certificateOfEnrolment(enrolment.id) : null;
    const summary = certificate
      ? {
          id: certificate.id,
          issuedAt: certificate.issuedAt.toISOString(),
          verificationUrl: await this.verifyUrlOf(certificate.id),
        }
      : null;
    return presentEnrolment(enrolment, progress, summary);
  }

  async progress(enrolment: Enrolment, transaction?: Tx) {
    const counts = await this.progressCounts(enrolment, transaction);
    const lessons = await enrolmentStore.completedLessons(this.deps.sequelize, enrolment, transaction);
    return {
      ...counts,
      lessons: lessons.map((l) => ({ lessonId: l.lessonId, completedAt: l.completedAt.toISOString() })),
    };
  }

  /** Marks a lesson completed (idempotent) and, the first time progress reaches 100 %, issues the certificate. */
  async complete(enrolmentId: string, lessonId: string) {
    return this.deps.sequelize.transaction(async (transaction) => {
      const enrolment = await enrolmentStore.lockEnrolment(enrolmentId, transaction);
      if (!enrolment) throw enrolmentErrors.notFound();
      if (enrolment.status === 'REVOKED') throw enrolmentErrors.revoked();
      if (!enrolmentHasAccess(enrolment.status)) throw enrolmentErrors.withoutAccess(enrolment.status);
      const lesson = await courseStore.findLesson(enrolment.courseId, lessonId, transaction);
      if (!lesson) throw enrolmentErrors.lessonNotFound();
      await enrolmentStore.recordLessonCompleted(this.deps.sequelize, enrolmentId, lessonId, transaction);
      const progress = await this.progress(enrolment, transaction);
      if (progress.totalLessons > 0 && progress.completedLessons >= progress.totalLessons)
        await this.issueCertificate(enrolment, transaction);
      return progress;
    });
  }

  /** The certificate PDF of an ACTIVE enrolment that reached 100 %; else 409 CERTIFICATE_UNAVAILABLE. */
  async certificatePdf(enrolment: Enrolment): Promise<{ certificateId: string; pdf: Buffer }> {
    if (enrolment.status !== 'ACTIVE')
      throw enrolmentErrors.certificateUnavailable(
        `the enrolment is ${enrolment.status}: its certificate is not valid now`,
      );
    const certificate = await enrolmentStore.certificateOfEnrolment(enrolment.id);
    const loaded = certificate ? await loadCertificateFacts(certificate.id) : null;
    if (!loaded)
      throw enrolmentErrors.certificateUnavailable(
        'no certificate yet: it is issued when every lesson of the course is completed',
      );
    const code = sealCode(
      'CERTIFICATE',
      certificateDigest(loaded.facts),
      loaded.facts.certificateId,
      this.deps.verificationKey,
    );
    // Loaded on first use, as the boleto PDF (api/charges/service.ts): pdfkit stays out of the API's memory until then.
    const { renderCertificatePdf } = await import('../../../core/receipts/pdf/renderCertificatePdf');
    const pdf = await renderCertificatePdf(loaded.facts, {
      code,
      verifyUrl: receiptVerifyUrl(this.deps.publicBaseUrl, code),
    });
    return { certificateId: loaded.facts.certificateId, pdf };
  }

  private async verifyUrlOf(certificateId: string): Promise<string> {
    const loaded = await loadCertificateFacts(certificateId);
    if (!loaded) throw new Error(`certificate ${certificateId} has no facts`);
    return receiptVerifyUrl(
      this.deps.publicBaseUrl,
      sealCode('CERTIFICATE', certificateDigest(loaded.facts), certificateId, this.deps.verificationKey),
    );
  }

  private async issueCertificate(enrolment: Enrolment, transaction: Tx): Promise<void> {
    // The enrolment row is locked: no other completion of it runs between this read and insert.
    await enrolmentStore.issueCertificate(this.deps.sequelize, enrolment.id, transaction);
  }

  private async progressCounts(enrolment: Enrolment, transaction?: Tx): Promise<Progress> {
    const { completed, total } = await enrolmentStore.progressCounts(this.deps.sequelize, enrolment, transaction);
    return progressOf(completed, total);
  }
}
