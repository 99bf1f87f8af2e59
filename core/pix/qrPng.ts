/** QR code PNG for a BR Code, base64 without the `data:` prefix (ProviderCharge.qrCodeBase64). */
import QRCode from 'qrcode';
import { PNG } from 'pngjs';

/** Image width in pixels, quiet zone included. */
const WIDTH = 300;
/** Quiet zone, in modules. */
const MARGIN = 2;

/**
 * qrcode computes the matrix; the image is an 8-bit grayscale PNG that pngjs encodes with no row
 * filter at zlib's default level. Every charge create renders one (the sandbox renders its own
 * too), and qrcode's own PNG renderer (RGBA, level 9) cost several times as much per image and
 * made a larger file, because a black-and-white image needs one byte per pixel, not four (the
 * figures: docs/benchmarks.md).
 */
export async function qrCodePngBase64(text: string): Promise<string> {
  return qrCodePng(text).toString('base64');
}

export function qrCodePng(text: string): Buffer {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const size = modules.size;
  const scale = WIDTH / (size + 2 * MARGIN);
  // Which module each pixel column (and row) falls in; -1 in the quiet zone.
  const moduleAt = new Int16Array(WIDTH);
  for (let p = 0; p < WIDTH; p++) {
    const m = Math.floor(p / scale) - MARGIN;
    moduleAt[p] = m >= 0 && m < size ? m : -1;
  }
  const pixels = Buffer.alloc(WIDTH * WIDTH, 255);
  for (let y = 0; y < WIDTH; y++) {
    const row = moduleAt[y];
    if (row < 0) continue;
    const offset = y * WIDTH;
    for (let x = 0; x < WIDTH; x++) {
      const column = moduleAt[x];
      if (column >= 0 && modules.get(row, column)) pixels[offset + x] = 0;
    }
  }
  const png = new PNG({ width: WIDTH, height: WIDTH });
  png.data = pixels;
  // colorType, inputColorType, deflateStrategy and filterType are pngjs options missing from @types/pngjs.
  const options = {
    colorType: 0,
    inputColorType: 0,
    inputHasAlpha: false,
    bitDepth: 8,
    deflateLevel: 6,
    deflateStrategy: 0,
    filterType: 0,
  };
  return PNG.sync.write(png, options as Parameters<typeof PNG.sync.write>[1]);
}
