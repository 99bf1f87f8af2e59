/**
 * A course certificate ("Certificado de conclusão") as a one-page landscape A4 PDF: the student,
 * the course, the producer (merchant), the issue date in Brasília, the certificate id, the
 * verification code and a QR code to the same public verify page as receipts. Fonts are the
 * receipts' embedded DejaVu (fonts.ts), so pdftotext reads accents back. Pure rendering: the
 * dates in the file come from issuedAt.
 */
import PDFDocument from 'pdfkit';
import QRCode from 'qrcode';
import { formatDateBrasilia, type CertificateFacts } from '../certificate';
import { prepareReceiptDocument } from './fonts';
import { opaqueGrayPng } from '../../pdf/opaquePng';

export interface CertificatePdfOptions {
  /** The code the QR's URL carries (also printed, for typing it in). */
  code: string;
  /** `{PUBLIC_BASE_URL}/receipts/verify?code=…` */
  verifyUrl: string;
}

const PAGE = { width: 841.89, height: 595.28 };
const MARGIN = 48;
const WIDTH = PAGE.width - 2 * MARGIN;
const QR_SIZE = 110;
const GRAY = '#555555';

export async function renderCertificatePdf(facts: CertificateFacts, opts: CertificatePdfOptions): Promise<Buffer> {
  const issuedAt = new Date(facts.issuedAt);
  if (Number.isNaN(issuedAt.getTime())) throw new RangeError('issuedAt is not a valid date');
  const qrPng = opaqueGrayPng(
    await QRCode.toBuffer(opts.verifyUrl, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 8 }),
  );
  const doc = new PDFDocument({
    size: [PAGE.width, PAGE.height],
    margins: { top: 0, bottom: 0, left: 0, right: 0 },
    info: {
      Title: `Certificado de conclusão - ${facts.courseTitle}`,
      Subject: 'Certificado de conclusão',
      Creator: 'pix-gateway',
      Producer: 'pix-gateway',
      CreationDate: issuedAt,
      ModDate: issuedAt,
    },
  });
  const done = prepareReceiptDocument(doc);

  doc
    .rect(MARGIN / 2, MARGIN / 2, PAGE.width - MARGIN, PAGE.height - MARGIN)
    .lineWidth(2)
    .strokeColor('#1f3a5f')
    .stroke();
  const center = (text: string, y: number, font: string, size: number, color = '#000000', maxLines = 1) => {
    doc.font(font).fontSize(size).fillColor(color);
    const height = Math.min(doc.heightOfString(text, { width: WIDTH, align: 'center' }), size * 1.3 * maxLines);
    doc.text(text, MARGIN, y, { width: WIDTH, align: 'center', height, ellipsis: true });
    return y + Math.max(height, size * 1.3);
  };
  let y = MARGIN + 20;
  y = center(facts.merchantName, y, 'Sans-Bold', 12, GRAY);
  y = center('Certificado de conclusão', y + 14, 'Sans-Bold', 30);
  y = center('Certificamos que', y + 22, 'Sans', 13, GRAY);
  y = center(facts.studentName ?? 'Aluno(a)', y + 6, 'Sans-Bold', 24, '#000000', 2);
  y = center('concluiu o curso', y + 10, 'Sans', 13, GRAY);
  y = center(facts.courseTitle, y + 6, 'Sans-Bold', 20, '#000000', 2);
  center(
    `oferecido por ${facts.merchantName}, em ${formatDateBrasilia(facts.issuedAt)}.`,
    y + 12,
    'Sans',
    13,
    '#000000',
    2,
  );

  // Footer: the QR on the left, the identifiers and how to check them on the right.
  const top = PAGE.height - MARGIN - QR_SIZE - 6;
  doc.image(qrPng, MARGIN, top, { width: QR_SIZE, height: QR_SIZE });
  const x = MARGIN + QR_SIZE + 16;
  const w = WIDTH - QR_SIZE - 16;
  doc
    .font('Sans-Bold')
    .fontSize(11)
    .fillColor('#000000')
    .text('Valide este certificado', x, top + 4, { width: w, lineBreak: false });
  doc
    .font('Sans')
    .fontSize(8.5)
    .fillColor(GRAY)
    .text(`Data de emissão: ${formatDateBrasilia(facts.issuedAt)} (horário de Brasília)`, x, top + 22, {
      width: w,
      lineBreak: false,
    });
  doc.text(`Certificado: ${facts.certificateId}`, x, top + 36, { width: w, lineBreak: false });
  doc.text('Código de verificação:', x, top + 50, { width: w, lineBreak: false });
  doc
    .font('Mono')
    .fontSize(7)
    .fillColor('#000000')
    .text(opts.code, x, top + 62, { width: w, height: 20 });
  doc
    .font('Mono')
    .fontSize(6.5)
    .fillColor(GRAY)
    .text(opts.verifyUrl, x, top + 84, { width: w, height: 22, ellipsis: true });
  doc.end();
  return done;
}
