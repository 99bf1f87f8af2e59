/**
 * Whether a receipt's code is genuine: it must open with our key (verificationCode.ts), name a
 * document we still have in a settled state, and carry the digest of that document's facts as they
 * are now. Any failure is the same `{ authentic: false }`.
 */
import { digestMatches, hexDigestsEqual, verifyVerificationCode } from '../../core/receipts/verificationCode';
import { certificateDigest } from '../../core/receipts/certificate';
import { loadCertificateFacts, type LoadCertificate } from '../marketplace/enrolments/certificateFacts';
import { maskReceiptDocument } from '../../core/receipts/masking';
import type { LoadReceiptFacts } from './facts';
import type { ReceiptVerification } from './schema';

export class ReceiptVerifyService {
  constructor(private readonly deps: { key: Buffer; loadFacts: LoadReceiptFacts; loadCertificate?: LoadCertificate }) {}

  async verify(code: unknown): Promise<ReceiptVerification> {
    const opened = verifyVerificationCode(code, this.deps.key);
    if (!opened.ok) return { authentic: false };
    if (opened.kind === 'CERTIFICATE') return this.certificate(opened.documentId, opened.digest);
    const facts = await this.deps.loadFacts(opened.kind, opened.documentId);
    if (
      !facts ||
      facts.kind !== opened.kind ||
      facts.documentId !== opened.documentId ||
      !digestMatches(facts, opened.digest)
    )
      return { authentic: false };
    const party = (p: typeof facts.payer) => (p ? { name: p.name, document: maskReceiptDocument(p.document) } : null);
    return {
      authentic: true,
      kind: facts.kind,
      amountCents: facts.amountCents,
      occurredAt: new Date(facts.occurredAt).toISOString(),
      endToEndId: facts.endToEndId,
      payer: party(facts.payer),
      receiver: party(facts.receiver),
      refunds: facts.refunds.map((r) => ({ amountCents: r.amountCents, at: new Date(r.at).toISOString() })),
    };
  }

  /** A certificate: authentic when its facts still hash to the code's digest; valid while its enrolment is ACTIVE. */
  private async certificate(certificateId: string, digest: string): Promise<ReceiptVerification> {
    const loaded = await (this.deps.loadCertificate ?? loadCertificateFacts)(certificateId);
    if (!loaded || !hexDigestsEqual(certificateDigest(loaded.facts), digest)) return { authentic: false };
    const { facts } = loaded;
    const revoked = loaded.enrolmentStatus !== 'ACTIVE';
    return {
      authentic: true,
      kind: 'CERTIFICATE',
      valid: !revoked,
      status: revoked ? 'REVOKED' : 'VALID',
      revokedAt: revoked && loaded.revokedAt ? loaded.revokedAt.toISOString() : null,
      certificateId: facts.certificateId,
      student: { name: facts.studentName, document: maskReceiptDocument(facts.studentDocument) },
      courseTitle: facts.courseTitle,
      merchantName: facts.merchantName,
      issuedAt: new Date(facts.issuedAt).toISOString(),
    };
  }
}
