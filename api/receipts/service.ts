/**
 * Whether a receipt's code is genuine: it must open with our key (verificationCode.ts), name a
 * document we still have in a settled state, and carry the digest of that document's facts as they
 * are now. Any failure is the same `{ authentic: false }`.
 */
import { digestMatches, verifyVerificationCode } from '../../core/receipts/verificationCode';
import { maskReceiptDocument } from '../../core/receipts/masking';
import type { LoadReceiptFacts } from './facts';
import type { ReceiptVerification } from './schema';

export class ReceiptVerifyService {
  constructor(private readonly deps: { key: Buffer; loadFacts: LoadReceiptFacts }) {}

  async verify(code: unknown): Promise<ReceiptVerification> {
    const opened = verifyVerificationCode(code, this.deps.key);
    if (!opened.ok) return { authentic: false };
    const facts = await this.deps.loadFacts(opened.kind, opened.documentId);
    if (!facts || facts.kind !== opened.kind || facts.documentId !== opened.documentId || !digestMatches(facts, opened.digest)) return { authentic: false };
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
}
