/**
 * A receipt (comprovante) as a one-page A4 PDF, laid out like the ones Brazilian banks hand out:
 * title by kind, the amount large, date and time in Brasília, the transaction's identifiers, who
 * paid and who received (personal data masked, core/receipts/masking.ts), the fee and refunds when
 * there are any, and a QR code to the verification page with the caption "Valide este comprovante".
 *
 * Pure rendering: no clock, no randomness, no files written. Dates in the PDF come from occurredAt
 * and pdfkit derives the file ID from the info dictionary, so the same facts and URL give the same
 * bytes. Fonts are embedded TrueType (pdf/fonts.ts).
 */
import PDFDocument from 'pdfkit';
import { Piscina } from 'piscina';
import QRCode from 'qrcode';
import type { ReceiptFacts } from '../facts';
import { formatBrl, formatDateTimeBrasilia, RECEIPT_TITLES } from '../format';
import { maskParty, type MaskedParty } from '../masking';
import { prepareReceiptDocument } from './fonts';
import { opaqueGrayPng } from '../../pdf/opaquePng';

export interface ReceiptPdfOptions {
  /** `{PUBLIC_BASE_URL}/receipts/verify?code=…` (core/receipts/verificationCode.ts receiptVerifyUrl). */
  verifyUrl: string;
  /** Shown at the top; the platform's name by default. */
  issuerName?: string;
}

const A4 = { width: 595.28, height: 841.89 };
const MARGIN = 42;
const WIDTH = A4.width - 2 * MARGIN;
const LABEL_W = 150;
const VALUE_X = MARGIN + LABEL_W;
const VALUE_W = WIDTH - LABEL_W;
const QR_SIZE = 120;
/** Room kept at the foot of the page for the QR block. */
const FOOTER_H = QR_SIZE + 30;
const MAX_REFUND_LINES = 8;
const GRAY = '#555555';
const LINE = '#bbbbbb';

type Doc = PDFKit.PDFDocument;

const SIDE_TITLES: Record<ReceiptFacts['kind'], { payer: string; receiver: string }> = {
  CHARGE: { payer: 'Quem pagou', receiver: 'Quem recebeu' },
  WITHDRAWAL: { payer: 'Origem (conta de pagamento)', receiver: 'Destino' },
  PAYOUT_ITEM: { payer: 'Quem enviou', receiver: 'Quem recebeu' },
};

function checkFacts(facts: ReceiptFacts): Date {
  if (!Number.isSafeInteger(facts.amountCents) || facts.amountCents < 0)
    throw new RangeError('amountCents must be a non-negative integer');
  const occurredAt = new Date(facts.occurredAt);
  if (Number.isNaN(occurredAt.getTime())) throw new RangeError('occurredAt is not a valid date');
  return occurredAt;
}

export async function renderReceiptPdf(facts: ReceiptFacts, opts: ReceiptPdfOptions): Promise<Buffer> {
  const occurredAt = checkFacts(facts);
  // Margin 4 modules (the QR standard's quiet zone); M: a printed, photographed page survives.
  const qrPng = opaqueGrayPng(
    await QRCode.toBuffer(opts.verifyUrl, { type: 'png', errorCorrectionLevel: 'M', margin: 4, scale: 8 }),
  );
  const title = RECEIPT_TITLES[facts.kind];

  const doc = new PDFDocument({
    size: 'A4',
    // Zero margins: pdfkit adds a page when text reaches the bottom margin; the layout is absolute.
    margins: { top: 0, bottom: 0, left: 0, right: 0 },
    info: {
      Title: `${title} - ${formatBrl(facts.amountCents)}`,
      Subject: title,
      Creator: 'pix-gateway',
      Producer: 'pix-gateway',
      CreationDate: occurredAt,
      ModDate: occurredAt,
    },
  });
  const done = prepareReceiptDocument(doc);

  let y = drawHeader(doc, facts, title, opts.issuerName ?? 'Pix Gateway');
  y = section(doc, y, 'Dados da transação');
  y = row(doc, y, 'Valor', formatBrl(facts.amountCents));
  if (facts.feeCents !== null) {
    y = row(doc, y, 'Tarifa', formatBrl(facts.feeCents));
    y = row(doc, y, 'Total debitado', formatBrl(facts.amountCents + facts.feeCents));
  }
  y = row(doc, y, 'Data e hora', `${formatDateTimeBrasilia(facts.occurredAt)} (horário de Brasília)`);
  y = row(doc, y, 'ID da transação (E2E)', facts.endToEndId ?? '-', { mono: true });
  if (facts.txid) y = row(doc, y, 'Identificador (txid)', facts.txid, { mono: true });
  if (facts.description) y = row(doc, y, 'Descrição', facts.description, { maxLines: 3 });

  const sides = SIDE_TITLES[facts.kind];
  y = partyBlock(doc, y, sides.payer, maskParty(facts.payer));
  y = partyBlock(doc, y, sides.receiver, maskParty(facts.receiver));
  if (facts.refunds.length > 0) refundsBlock(doc, y, facts.refunds);

  drawFooter(doc, qrPng, opts.verifyUrl);
  doc.end();
  return done;
}

function drawHeader(doc: Doc, facts: ReceiptFacts, title: string, issuer: string): number {
  let y = MARGIN;
  doc.font('Sans-Bold').fontSize(10).fillColor(GRAY).text(issuer, MARGIN, y, { width: WIDTH, lineBreak: false });
  y += 24;
  doc.font('Sans-Bold').fontSize(20).fillColor('#000000').text(title, MARGIN, y, { width: WIDTH, lineBreak: false });
  y += 34;
  doc.font('Sans').fontSize(9).fillColor(GRAY).text('Valor', MARGIN, y, { lineBreak: false });
  y += 12;
  doc
    .font('Sans-Bold')
    .fontSize(26)
    .fillColor('#000000')
    .text(formatBrl(facts.amountCents), MARGIN, y, { width: WIDTH, lineBreak: false });
  y += 36;
  doc
    .font('Sans')
    .fontSize(10)
    .text(formatDateTimeBrasilia(facts.occurredAt), MARGIN, y, { width: WIDTH, lineBreak: false });
  return y + 22;
}

function section(doc: Doc, y: number, title: string): number {
  doc
    .moveTo(MARGIN, y)
    .lineTo(MARGIN + WIDTH, y)
    .lineWidth(0.5)
    .strokeColor(LINE)
    .stroke();
  doc
    .font('Sans-Bold')
    .fontSize(11)
    .fillColor('#000000')
    .text(title, MARGIN, y + 8, { width: WIDTH, lineBreak: false });
  return y + 28;
}

/** Label on the left in gray, value on the right; long values wrap up to maxLines, then an ellipsis. */
function row(
  doc: Doc,
  y: number,
  label: string,
  value: string,
  opts: { mono?: boolean; maxLines?: number } = {},
): number {
  const size = 9.5;
  doc
    .font('Sans')
    .fontSize(size)
    .fillColor(GRAY)
    .text(label, MARGIN, y, { width: LABEL_W - 8, lineBreak: false, ellipsis: true });
  doc
    .font(opts.mono ? 'Mono' : 'Sans')
    .fontSize(size)
    .fillColor('#000000');
  const lineH = size * 1.25;
  const height = Math.min(doc.heightOfString(value, { width: VALUE_W }), lineH * (opts.maxLines ?? 2));
  doc.text(value, VALUE_X, y, { width: VALUE_W, height, ellipsis: true });
  return y + Math.max(height, lineH) + 4;
}

function partyBlock(doc: Doc, y: number, title: string, party: MaskedParty | null): number {
  y = section(doc, y + 6, title);
  if (!party) return row(doc, y, 'Nome', 'Não informado');
  y = row(doc, y, 'Nome', party.name);
  if (party.document) y = row(doc, y, party.documentType ?? 'Documento', party.document);
  if (party.institution) y = row(doc, y, 'Instituição', party.institution);
  if (party.ispb) y = row(doc, y, 'ISPB', party.ispb);
  if (party.agency || party.account)
    y = row(doc, y, 'Agência / Conta', `${party.agency ?? '-'} / ${party.account ?? '-'}`);
  if (party.pixKey) y = row(doc, y, 'Chave Pix', party.pixKey);
  return y;
}

function refundsBlock(doc: Doc, y: number, refunds: ReceiptFacts['refunds']): number {
  y = section(doc, y + 6, 'Devoluções');
  const shown = refunds.slice(0, MAX_REFUND_LINES);
  for (const r of shown) y = row(doc, y, formatDateTimeBrasilia(r.at), formatBrl(r.amountCents));
  if (refunds.length > shown.length) y = row(doc, y, '', `e mais ${refunds.length - shown.length} devoluções`);
  const total = refunds.reduce((s, r) => s + r.amountCents, 0);
  return row(doc, y, 'Total devolvido', formatBrl(total));
}

function drawFooter(doc: Doc, qrPng: Buffer, verifyUrl: string): void {
  const top = A4.height - MARGIN - FOOTER_H;
  doc
    .moveTo(MARGIN, top)
    .lineTo(MARGIN + WIDTH, top)
    .lineWidth(0.5)
    .strokeColor(LINE)
    .stroke();
  const y = top + 14;
  doc.image(qrPng, MARGIN, y, { width: QR_SIZE, height: QR_SIZE });
  const x = MARGIN + QR_SIZE + 16;
  const w = WIDTH - QR_SIZE - 16;
  doc
    .font('Sans-Bold')
    .fontSize(12)
    .fillColor('#000000')
    .text('Valide este comprovante', x, y + 8, { width: w, lineBreak: false });
  doc
    .font('Sans')
    .fontSize(8.5)
    .fillColor(GRAY)
    .text(
      'Aponte a câmera do celular para o QR Code, ou acesse o endereço abaixo, para confirmar que este comprovante foi emitido por nós e que os dados conferem.',
      x,
      y + 28,
      { width: w },
    );
  doc
    .font('Mono')
    .fontSize(6.5)
    .fillColor('#000000')
    .text(verifyUrl, x, y + 62, { width: w, height: 40, ellipsis: true });
}

/** What a render thread is given (api/receipts/receiptDocuments.ts's pool). */
export interface RenderTask {
  facts: ReceiptFacts;
  verifyUrl: string;
}

/**
 * The entry of a receipt render thread: this file is the pool's worker (pdfkit's layout, font
 * subsetting and QR encoding are synchronous CPU work that would stall the API's event loop).
 * The bytes go back moved, not copied.
 */
export default async function renderInThread(task: RenderTask): Promise<Uint8Array> {
  const pdf = await renderReceiptPdf(task.facts, { verifyUrl: task.verifyUrl });
  // A copy that owns its whole ArrayBuffer (a Buffer may be a slice of a shared pool), so it can be moved.
  const bytes = new Uint8Array(pdf.byteLength);
  bytes.set(pdf);
  return Piscina.move(bytes) as unknown as Uint8Array;
}
