/**
 * What the boleto PDF of a charge shows, from the stored charge alone (no provider call): the
 * merchant as beneficiary, the charge's payer, the digits the provider registered, the late-payment
 * terms as instructions and the hybrid boleto's Pix copy-paste. Pure.
 */
import { addDays } from '../../core/boletos';
import type { BoletoPdfInput } from '../../core/boletos/pdf/types';
import type { Charge, Merchant } from '../../db/models';

/** Bank names by compensation code; the sandbox's 999 is fictional. */
const BANK_NAMES: Record<string, string> = { '999': 'Banco Sandbox' };

function percent(bps: number): string {
  return (bps / 100).toFixed(2).replace('.', ',');
}

function documentType(document: string): 'CPF' | 'CNPJ' {
  return document.replace(/\D/g, '').length === 11 ? 'CPF' : 'CNPJ';
}

function brDate(isoDate: string): string {
  const [y, m, d] = isoDate.split('-');
  return `${d}/${m}/${y}`;
}

export function boletoPdfInput(charge: Charge, merchant: Merchant): BoletoPdfInput {
  const payer = charge.payerDetails;
  const dueDate = charge.boletoDueDate as string;
  const graceDays = charge.boletoGraceDays ?? 0;
  const fineBps = charge.boletoFineBps ?? 0;
  const interestBps = charge.boletoInterestMonthlyBps ?? 0;
  const lateFrom = graceDays > 0 ? `Após ${graceDays} dia(s) de carência do vencimento` : 'Após o vencimento';
  const instructions = [
    ...(charge.description ? [charge.description] : []),
    `Não receber após ${brDate(addDays(dueDate, graceDays))}.`,
    'Pagável também por Pix: use o QR code ou o código copia e cola.',
  ];
  const beneficiaryDocument = merchant.document ?? '';
  return {
    beneficiary: {
      name: merchant.name,
      document: beneficiaryDocument,
      documentType: merchant.documentType ?? documentType(beneficiaryDocument),
    },
    payer: { name: payer?.name ?? '', document: payer?.taxId ?? '', documentType: documentType(payer?.taxId ?? '') },
    amountCents: charge.amountCents,
    dueDate,
    issuedAt: charge.createdAt,
    nossoNumero: charge.boletoNossoNumero as string,
    documentNumber: charge.externalRef ?? charge.id.slice(0, 8).toUpperCase(),
    digitableLine: charge.boletoDigitableLine as string,
    barcode: charge.boletoBarcode as string,
    bankCode: charge.boletoBankCode as string,
    bankName: BANK_NAMES[charge.boletoBankCode as string] ?? `Banco ${charge.boletoBankCode}`,
    instructions,
    fineText: fineBps > 0 ? `${lateFrom}, multa de ${percent(fineBps)}%.` : undefined,
    interestText: interestBps > 0 ? `${lateFrom}, juros de mora de ${percent(interestBps)}% ao mês.` : undefined,
    pixCopyPaste: charge.pix?.copyPaste,
  };
}
