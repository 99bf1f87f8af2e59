/**
 * What an evidence file of a MED defence is, by its first bytes (never by its name or the type the
 * client declared): a PDF, or a PNG or JPEG image (receipts, screenshots, delivery photos). The
 * rest (archives, office documents, executables, HTML) is refused: evidence is opened by people.
 */
import { detectImageType, IMAGE_SNIFF_BYTES } from './imageType';

export const EVIDENCE_TYPES = ['application/pdf', 'image/png', 'image/jpeg'] as const;
export type EvidenceType = (typeof EVIDENCE_TYPES)[number];

/** Bytes `detectEvidenceType` needs to see. */
export const EVIDENCE_SNIFF_BYTES = Math.max(IMAGE_SNIFF_BYTES, 8);

export function detectEvidenceType(head: Buffer): EvidenceType | null {
  // PDF: the header `%PDF-` and a version digit (1.x or 2.x).
  if (head.length >= 8 && head.toString('latin1', 0, 5) === '%PDF-' && /^[12]\.\d$/.test(head.toString('latin1', 5, 8)))
    return 'application/pdf';
  const image = detectImageType(head);
  return image === 'image/png' || image === 'image/jpeg' ? image : null;
}
