/**
 * Runs in a worker thread of the receipt render pool (renderPool.ts): pdfkit's layout, font
 * subsetting and QR encoding are synchronous CPU work that would otherwise stall every request
 * of the API while a receipt is drawn. The bytes go back transferred, not copied.
 */
import { Piscina } from 'piscina';
import type { ReceiptFacts } from '../../core/receipts/facts';
import { renderReceiptPdf } from '../../core/receipts/pdf/renderReceiptPdf';

export interface RenderTask {
  facts: ReceiptFacts;
  verifyUrl: string;
}

export default async function render(task: RenderTask): Promise<Uint8Array> {
  const pdf = await renderReceiptPdf(task.facts, { verifyUrl: task.verifyUrl });
  // A copy that owns its whole ArrayBuffer (a Buffer may be a slice of a shared pool), so it can be moved.
  const bytes = new Uint8Array(pdf.byteLength);
  bytes.set(pdf);
  return Piscina.move(bytes) as unknown as Uint8Array;
}
