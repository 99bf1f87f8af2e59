/**
 * What an uploaded file is, by its first bytes rather than by what the client declared: a
 * text file renamed .png and uploaded as image/png is not an image. Only the formats an
 * avatar may have are recognised. (The `file-type` package does this too but is ESM-only;
 * three signatures do not justify a dynamic import.)
 */
export type ImageType = 'image/png' | 'image/jpeg' | 'image/webp';

/** Bytes `detectImageType` needs to see. */
export const IMAGE_SNIFF_BYTES = 16;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function detectImageType(head: Buffer): ImageType | null {
  // PNG: the 8-byte signature, then the first chunk, which must be IHDR.
  if (head.length >= 16 && head.subarray(0, 8).equals(PNG_SIGNATURE) && head.toString('latin1', 12, 16) === 'IHDR')
    return 'image/png';
  // JPEG: SOI (FF D8) followed by a marker (FF xx).
  if (head.length >= 4 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'image/jpeg';
  // WebP: a RIFF container of form WEBP whose first chunk is VP8 (lossy), VP8L (lossless) or VP8X (extended).
  if (
    head.length >= 16 &&
    head.toString('latin1', 0, 4) === 'RIFF' &&
    head.toString('latin1', 8, 12) === 'WEBP' &&
    ['VP8 ', 'VP8L', 'VP8X'].includes(head.toString('latin1', 12, 16))
  ) {
    return 'image/webp';
  }
  return null;
}
