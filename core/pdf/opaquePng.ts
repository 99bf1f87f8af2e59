/**
 * Images for our PDFs (QR codes, the boleto's bars) as opaque grayscale PNGs. pdfkit decodes a PNG
 * that has an alpha channel asynchronously (a zlib callback) and creates its soft mask when the
 * decode ends, so with two such images on a page the objects' order, and with it the PDF's bytes,
 * depended on which decode finished first: the same boleto did not always render the same bytes.
 * Our images are black on white: flattened onto white, they lose nothing, and pdfkit embeds an
 * opaque PNG at once, in drawing order.
 */
import { PNG } from 'pngjs';

export function opaqueGrayPng(png: Buffer): Buffer {
  const image = PNG.sync.read(png);
  return PNG.sync.write(image, { colorType: 0, inputHasAlpha: true, bgColor: { red: 255, green: 255, blue: 255 } });
}
