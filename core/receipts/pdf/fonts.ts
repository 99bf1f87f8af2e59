/**
 * The receipt's embedded fonts: DejaVu Sans (regular, bold) and DejaVu Sans Mono, TrueType files
 * shipped by the npm package `dejavu-fonts-ttf` (Bitstream Vera licence + public-domain DejaVu
 * changes: free to embed and redistribute; see node_modules/dejavu-fonts-ttf/LICENSE). Embedded
 * (pdfkit subsets them), so accents and "R$" render the same in every viewer and pdftotext reads
 * them back as Unicode. Read once per process.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface ReceiptFonts {
  regular: Buffer;
  bold: Buffer;
  mono: Buffer;
}

let cached: ReceiptFonts | undefined;

export function receiptFonts(): ReceiptFonts {
  if (!cached) {
    const dir = path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
    cached = {
      regular: fs.readFileSync(path.join(dir, 'DejaVuSans.ttf')),
      bold: fs.readFileSync(path.join(dir, 'DejaVuSans-Bold.ttf')),
      mono: fs.readFileSync(path.join(dir, 'DejaVuSansMono.ttf')),
    };
  }
  return cached;
}

/**
 * Registers the fonts as 'Sans', 'Sans-Bold' and 'Mono' on a new document and collects its bytes:
 * the promise settles once the caller has drawn the pages and called doc.end().
 */
export function prepareReceiptDocument(doc: PDFKit.PDFDocument): Promise<Buffer> {
  const fonts = receiptFonts();
  doc.registerFont('Sans', fonts.regular);
  doc.registerFont('Sans-Bold', fonts.bold);
  doc.registerFont('Mono', fonts.mono);
  const chunks: Buffer[] = [];
  return new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}
