/**
 * The boleto as a one-page A4 PDF: the payer's receipt ("Recibo do pagador") with the Pix QR code
 * of the hybrid boleto on top, a cut line, and the FEBRABAN "ficha de compensação" at the foot of
 * the page (where the bank's layout rules put it on A4), ending in the Interleaved 2 of 5 barcode.
 *
 * Pure rendering: no clock, no randomness, no files written. The PDF's dates come from issuedAt, so
 * the same input gives the same bytes (pdfkit derives the file ID from the info dictionary).
 * Fonts are pdfkit's built-in Helvetica (WinAnsi covers Portuguese accents).
 */
import PDFDocument from 'pdfkit';
import { opaqueGrayPng } from '../../pdf/opaquePng';
import bwipjs from 'bwip-js';
import QRCode from 'qrcode';
import {
  bankCodeWithDigit,
  barcodeMatchesDigitableLine,
  formatBrl,
  formatDigitableLine,
  formatIsoDate,
  formatTaxId,
  isoDateInBrasilia,
} from './format';
import type { BoletoPdfInput } from './types';

export type { BoletoPdfInput } from './types';

const MM = 72 / 25.4;
const A4 = { width: 595.28, height: 841.89 };
const MARGIN = 10 * MM;
const LEFT = MARGIN;
const WIDTH = A4.width - 2 * MARGIN;
/** The right-hand column of the ficha (Vencimento, Nosso número, values). */
const RIGHT_COL = 48 * MM;

/**
 * Interleaved 2 of 5 as FEBRABAN specifies it for boletos: narrow element 0.254 mm (1/100 in),
 * wide:narrow 3:1, bars 13 mm high. 44 digits = 22 pairs × 18 modules + start (4) + stop (5)
 * = 405 modules = 102.9 mm. At 300 dpi a module is exactly 3 pixels.
 */
const I25_MODULES = 405;
const I25_MODULE_PT = 0.72;
const I25_HEIGHT_PT = 13 * MM;
/** White space kept clear on both sides of the bars (FEBRABAN asks ≥ 5 mm; scanners need ≥ 10 modules). */
const I25_QUIET_PT = 6 * MM;

const QR_SIZE_PT = 34 * MM;

const DEFAULT_PAYMENT_PLACE = 'Pagável em qualquer banco, casa lotérica ou aplicativo de banco até o vencimento';
const HYBRID_PAYMENT_PLACE = 'Pagável em qualquer banco até o vencimento, ou pelo Pix (QR Code no recibo do pagador)';

type Doc = PDFKit.PDFDocument;

interface Checked {
  barcode: string;
  digitableLine: string;
  issuedAt: Date;
}

function checkInput(input: BoletoPdfInput): Checked {
  const barcode = input.barcode.replace(/\D/g, '');
  const digitableLine = input.digitableLine.replace(/\D/g, '');
  if (barcode.length !== 44) throw new RangeError(`barcode must have 44 digits, got ${barcode.length}`);
  if (digitableLine.length !== 47)
    throw new RangeError(`digitable line must have 47 digits, got ${digitableLine.length}`);
  if (!barcodeMatchesDigitableLine(barcode, digitableLine))
    throw new RangeError('digitable line and barcode carry different digits');
  const issuedAt = input.issuedAt instanceof Date ? input.issuedAt : new Date(input.issuedAt);
  if (Number.isNaN(issuedAt.getTime())) throw new RangeError('issuedAt is not a valid date');
  formatIsoDate(input.dueDate); // throws on a malformed due date
  formatBrl(input.amountCents); // throws on a bad amount
  return { barcode, digitableLine, issuedAt };
}

/** Renders the boleto; rejects (RangeError) when the input cannot make a payable boleto. */
export async function renderBoletoPdf(input: BoletoPdfInput): Promise<Buffer> {
  const checked = checkInput(input);
  const [bars, qr] = await Promise.all([
    // scaleX 3: three image pixels per module, so a 300 dpi raster maps pixels one to one.
    bwipjs.toBuffer({
      bcid: 'interleaved2of5',
      text: checked.barcode,
      scaleX: 3,
      scaleY: 1,
      height: 13,
      includetext: false,
    }),
    input.pixCopyPaste
      ? QRCode.toBuffer(input.pixCopyPaste, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 8 })
      : Promise.resolve(undefined),
  ]);
  const barsPng = opaqueGrayPng(bars);
  const qrPng = qr && opaqueGrayPng(qr);

  const doc = new PDFDocument({
    size: 'A4',
    // Zero margins: pdfkit adds a page when text reaches the bottom margin; layout is absolute here.
    margins: { top: 0, bottom: 0, left: 0, right: 0 },
    info: {
      Title: `Boleto ${input.nossoNumero} - ${input.beneficiary.name}`,
      Author: input.beneficiary.name,
      Subject: `Boleto de ${formatBrl(input.amountCents)} com vencimento em ${formatIsoDate(input.dueDate)}`,
      Creator: 'pix-gateway',
      Producer: 'pix-gateway',
      CreationDate: checked.issuedAt,
      ModDate: checked.issuedAt,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  doc.lineWidth(0.5).strokeColor('#000').fillColor('#000');
  let y = MARGIN;
  y = drawReceipt(doc, input, checked, y);
  y = drawPix(doc, input, qrPng, y + 4 * MM);
  drawCutLine(doc, y + 3 * MM);
  drawFicha(doc, input, checked, barsPng);

  doc.end();
  return done;
}

/** A labelled box: small label on top, value below, truncated with an ellipsis to fit. */
function field(
  doc: Doc,
  x: number,
  y: number,
  w: number,
  h: number,
  label: string,
  value: string,
  opts: { align?: 'left' | 'right'; bold?: boolean; size?: number; lines?: number } = {},
): void {
  const size = opts.size ?? 9;
  doc.rect(x, y, w, h).stroke();
  doc
    .font('Helvetica')
    .fontSize(5.5)
    .text(label, x + 2, y + 1.5, { width: w - 4, height: 7, ellipsis: true, lineBreak: false });
  doc
    .font(opts.bold ? 'Helvetica-Bold' : 'Helvetica')
    .fontSize(size)
    .text(value, x + 3, y + 8.5, {
      width: w - 6,
      height: size * 1.2 * (opts.lines ?? 1),
      ellipsis: true,
      align: opts.align ?? 'left',
    });
}

/** Bank name box, "341-7" in bold between bars, and the digitable line: the header of both parts. */
function drawBankHeader(doc: Doc, input: BoletoPdfInput, y: number, right: string): number {
  const h = 24;
  const nameW = 50 * MM;
  const codeW = 20 * MM;
  doc
    .font('Helvetica-Bold')
    .fontSize(12)
    .text(input.bankName, LEFT, y + 7, { width: nameW - 4, height: 14, ellipsis: true });
  doc
    .moveTo(LEFT + nameW, y + 4)
    .lineTo(LEFT + nameW, y + h)
    .lineWidth(1.2)
    .stroke();
  doc
    .moveTo(LEFT + nameW + codeW, y + 4)
    .lineTo(LEFT + nameW + codeW, y + h)
    .stroke();
  doc.lineWidth(0.5);
  doc
    .font('Helvetica-Bold')
    .fontSize(14)
    .text(bankCodeWithDigit(input.bankCode), LEFT + nameW, y + 7, { width: codeW, align: 'center' });
  doc
    .font('Helvetica-Bold')
    .fontSize(11)
    .text(right, LEFT + nameW + codeW, y + 8.5, { width: WIDTH - nameW - codeW, align: 'right', lineBreak: false });
  return y + h;
}

function party(p: BoletoPdfInput['beneficiary'] | BoletoPdfInput['payer']): string {
  return `${p.name} - ${p.documentType} ${formatTaxId(p.document, p.documentType)}`;
}

function drawReceipt(doc: Doc, input: BoletoPdfInput, c: Checked, top: number): number {
  doc.font('Helvetica-Bold').fontSize(8).text('Recibo do pagador', LEFT, top, { width: WIDTH, align: 'right' });
  let y = drawBankHeader(doc, input, top + 8, formatDigitableLine(c.digitableLine));
  const rowH = 22;
  const w1 = WIDTH - RIGHT_COL - 45 * MM;
  const w2 = 45 * MM;
  field(doc, LEFT, y, w1, rowH, 'Beneficiário', party(input.beneficiary));
  field(doc, LEFT + w1, y, w2, rowH, 'Agência/Código do beneficiário', input.beneficiary.agencyCode ?? '');
  field(doc, LEFT + w1 + w2, y, RIGHT_COL, rowH, 'Vencimento', formatIsoDate(input.dueDate), {
    align: 'right',
    bold: true,
  });
  y += rowH;
  field(doc, LEFT, y, w1, rowH, 'Pagador', party(input.payer));
  field(doc, LEFT + w1, y, w2, rowH, 'Nosso número', input.nossoNumero);
  field(doc, LEFT + w1 + w2, y, RIGHT_COL, rowH, '(=) Valor do documento', formatBrl(input.amountCents), {
    align: 'right',
    bold: true,
  });
  y += rowH;
  const half = w1 / 2;
  field(doc, LEFT, y, half, rowH, 'Número do documento', input.documentNumber);
  field(doc, LEFT + half, y, w1 - half, rowH, 'Data do documento', formatIsoDate(isoDateInBrasilia(c.issuedAt)));
  field(doc, LEFT + w1, y, w2, rowH, '(-) Desconto / Abatimento', '');
  field(doc, LEFT + w1 + w2, y, RIGHT_COL, rowH, '(=) Valor cobrado', '', { align: 'right' });
  y += rowH;
  doc
    .font('Helvetica')
    .fontSize(6)
    .text('Autenticação mecânica', LEFT, y + 2, { width: WIDTH, align: 'right' });
  return y + 10;
}

/** The hybrid boleto's Pix: QR code (with its own 4-module quiet zone in the PNG) and the copy-and-paste text. */
function drawPix(doc: Doc, input: BoletoPdfInput, qrPng: Buffer | undefined, top: number): number {
  if (!qrPng || !input.pixCopyPaste) return top;
  doc.image(qrPng, LEFT, top, { width: QR_SIZE_PT, height: QR_SIZE_PT });
  const x = LEFT + QR_SIZE_PT + 4 * MM;
  const w = WIDTH - QR_SIZE_PT - 4 * MM;
  doc
    .font('Helvetica-Bold')
    .fontSize(13)
    .text('Pague com Pix', x, top + 6, { width: w });
  doc
    .font('Helvetica')
    .fontSize(8)
    .text(
      'Aponte a câmera do aplicativo do seu banco para o QR Code, ou use o Pix Copia e Cola abaixo. Pagando pelo Pix ou pelo código de barras, o que for pago primeiro quita este boleto.',
      x,
      top + 24,
      { width: w },
    );
  doc
    .font('Helvetica-Bold')
    .fontSize(6)
    .text('Pix Copia e Cola', x, top + 50, { width: w });
  // Courier breaks the long BR Code anywhere; its characters are all ASCII.
  doc
    .font('Courier')
    .fontSize(6.5)
    .text(input.pixCopyPaste, x, top + 58, { width: w, height: QR_SIZE_PT - 58, ellipsis: true });
  return top + QR_SIZE_PT;
}

function drawCutLine(doc: Doc, y: number): void {
  doc
    .moveTo(LEFT, y)
    .lineTo(LEFT + WIDTH, y)
    .dash(3, { space: 2 })
    .stroke()
    .undash();
  doc
    .font('Helvetica')
    .fontSize(6)
    .text('Corte na linha pontilhada', LEFT, y + 2, { width: WIDTH, align: 'right' });
}

/**
 * The ficha de compensação, laid out upwards from the page's foot so it keeps its place whatever
 * the receipt above holds: grid ≈ 93 mm, then the barcode band (≈ 17 mm).
 */
function drawFicha(doc: Doc, input: BoletoPdfInput, c: Checked, barsPng: Buffer): void {
  const rowH = 22;
  const instrH = 5 * 20;
  const payerH = 44;
  const gridH = 24 + 4 * rowH + instrH + payerH;
  const bandH = 4 * MM + I25_HEIGHT_PT;
  let y = A4.height - MARGIN - bandH - gridH;
  const leftW = WIDTH - RIGHT_COL;
  const rx = LEFT + leftW;

  y = drawBankHeader(doc, input, y, formatDigitableLine(c.digitableLine));
  const hybrid = Boolean(input.pixCopyPaste);
  field(
    doc,
    LEFT,
    y,
    leftW,
    rowH,
    'Local de pagamento',
    input.paymentPlace ?? (hybrid ? HYBRID_PAYMENT_PLACE : DEFAULT_PAYMENT_PLACE),
    { size: 8 },
  );
  field(doc, rx, y, RIGHT_COL, rowH, 'Vencimento', formatIsoDate(input.dueDate), { align: 'right', bold: true });
  y += rowH;
  field(doc, LEFT, y, leftW, rowH, 'Beneficiário', party(input.beneficiary));
  field(doc, rx, y, RIGHT_COL, rowH, 'Agência/Código do beneficiário', input.beneficiary.agencyCode ?? '', {
    align: 'right',
  });
  y += rowH;
  const issued = formatIsoDate(isoDateInBrasilia(c.issuedAt));
  const third = leftW / 3;
  field(doc, LEFT, y, third, rowH, 'Data do documento', issued);
  field(doc, LEFT + third, y, third, rowH, 'Número do documento', input.documentNumber);
  field(doc, LEFT + 2 * third, y, leftW - 2 * third, rowH, 'Data do processamento', issued);
  field(doc, rx, y, RIGHT_COL, rowH, 'Nosso número', input.nossoNumero, { align: 'right' });
  y += rowH;
  const fifth = leftW / 5;
  field(doc, LEFT, y, fifth, rowH, 'Uso do banco', '');
  field(doc, LEFT + fifth, y, fifth, rowH, 'Carteira', '');
  field(doc, LEFT + 2 * fifth, y, fifth, rowH, 'Espécie', 'R$');
  field(doc, LEFT + 3 * fifth, y, fifth, rowH, 'Quantidade', '');
  field(doc, LEFT + 4 * fifth, y, leftW - 4 * fifth, rowH, '(x) Valor', '');
  field(doc, rx, y, RIGHT_COL, rowH, '(=) Valor do documento', formatBrl(input.amountCents), {
    align: 'right',
    bold: true,
  });
  y += rowH;

  const lines = [...input.instructions, input.fineText, input.interestText].filter((l): l is string =>
    Boolean(l && l.trim()),
  );
  doc.rect(LEFT, y, leftW, instrH).stroke();
  doc
    .font('Helvetica')
    .fontSize(5.5)
    .text('Instruções (texto de responsabilidade do beneficiário)', LEFT + 2, y + 1.5, {
      width: leftW - 4,
      lineBreak: false,
    });
  doc
    .font('Helvetica')
    .fontSize(8)
    .text(lines.join('\n'), LEFT + 3, y + 9, { width: leftW - 6, height: instrH - 11, ellipsis: true });
  const cells = [
    '(-) Desconto / Abatimento',
    '(-) Outras deduções',
    '(+) Mora / Multa',
    '(+) Outros acréscimos',
    '(=) Valor cobrado',
  ];
  cells.forEach((label, i) => field(doc, rx, y + i * 20, RIGHT_COL, 20, label, ''));
  y += instrH;

  doc.rect(LEFT, y, WIDTH, payerH).stroke();
  doc
    .font('Helvetica')
    .fontSize(5.5)
    .text('Pagador', LEFT + 2, y + 1.5, { lineBreak: false });
  doc
    .font('Helvetica')
    .fontSize(8.5)
    .text(party(input.payer), LEFT + 3, y + 8.5, { width: WIDTH - 6, height: 11, ellipsis: true });
  const address = (input.payer.address ?? '').split('\n').slice(0, 2).join('\n');
  if (address)
    doc.fontSize(8).text(address, LEFT + 3, y + 20, { width: WIDTH - 6, height: 2 * 8 * 1.2 + 1, ellipsis: true });
  y += payerH;

  // Barcode band: bars at the left after the quiet zone, nothing else within the quiet zone on either side.
  const barsX = LEFT + I25_QUIET_PT;
  const barsW = I25_MODULES * I25_MODULE_PT;
  doc.image(barsPng, barsX, y + 4 * MM, { width: barsW, height: I25_HEIGHT_PT });
  const textX = barsX + barsW + I25_QUIET_PT;
  doc
    .font('Helvetica')
    .fontSize(6)
    .text('Autenticação mecânica', textX, y + 2, { width: LEFT + WIDTH - textX, align: 'right' });
  doc
    .font('Helvetica-Bold')
    .fontSize(8)
    .text('Ficha de Compensação', textX, y + 10, { width: LEFT + WIDTH - textX, align: 'right' });
}
