/** QR code PNG for a BR Code, base64 without the `data:` prefix (ProviderCharge.qrCodeBase64). */
import QRCode from 'qrcode';

/**
 * pngjs (used by qrcode) tries all five PNG row filters per row by default: pure-JS work that
 * costs ~1 s per image under jest and gains nothing on a two-colour image. No filter plus the
 * default zlib strategy is ~20x faster and gives a smaller file (~3 KB at 300 px).
 * filterType is a pngjs option missing from @types/qrcode, hence the untyped object.
 */
const rendererOpts = { deflateLevel: 9, deflateStrategy: 0, filterType: 0 };

export async function qrCodePngBase64(text: string): Promise<string> {
  const png = await QRCode.toBuffer(text, { type: 'png', errorCorrectionLevel: 'M', margin: 2, width: 300, rendererOpts });
  return png.toString('base64');
}
