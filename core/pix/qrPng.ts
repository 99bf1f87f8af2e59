/** QR code PNG for a BR Code, base64 without the `data:` prefix (ProviderCharge.qrCodeBase64). */
import zlib from 'node:zlib';
import QRCode from 'qrcode';

/** Image width in pixels, quiet zone included. */
const WIDTH = 300;
/** Quiet zone, in modules. */
const MARGIN = 2;
/** Bytes of one scanline: the filter byte, then 8 pixels a byte (1-bit grayscale). */
const ROW_BYTES = 1 + Math.ceil(WIDTH / 8);

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** IHDR: WIDTH × WIDTH, bit depth 1, color type 0 (grayscale), deflate, no filter method, not interlaced. */
const IHDR = chunk('IHDR', Buffer.from([...u32(WIDTH), ...u32(WIDTH), 1, 0, 0, 0, 0]));
const IEND = chunk('IEND', Buffer.alloc(0));

/**
 * qrcode computes the matrix; the image is a 1-bit grayscale PNG (black and white need one bit a
 * pixel), rows unfiltered, deflated at zlib's default level. Every charge create renders one (the
 * sandbox renders its own too): an 8-bit image deflated eight times the bytes (the figures:
 * docs/benchmarks.md).
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
  // Filter byte 0 (none) on every row; a set bit is white. The unused bits of the last byte are
  // padding (white).
  const raw = Buffer.alloc(ROW_BYTES * WIDTH, 0xff);
  for (let y = 0; y < WIDTH; y++) raw[y * ROW_BYTES] = 0;
  let previousRow = -1;
  for (let y = 0; y < WIDTH; y++) {
    const row = moduleAt[y];
    if (row < 0) continue;
    const offset = y * ROW_BYTES;
    // Pixel rows of one module row are the same bytes.
    if (row === previousRow) {
      raw.copy(raw, offset, offset - ROW_BYTES, offset);
      continue;
    }
    previousRow = row;
    for (let x = 0; x < WIDTH; x++) {
      const column = moduleAt[x];
      if (column >= 0 && modules.get(row, column)) raw[offset + 1 + (x >> 3)] &= ~(0x80 >> (x & 7));
    }
  }
  return Buffer.concat([PNG_SIGNATURE, IHDR, chunk('IDAT', zlib.deflateSync(raw)), IEND]);
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/** A PNG chunk: length, type, data, CRC-32 of type and data. */
function chunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  return Buffer.concat([u32(data.length), typeAndData, u32(zlib.crc32(typeAndData))]);
}
