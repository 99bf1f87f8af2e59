/** What a boleto PDF shows. Everything comes from the issued boleto: the renderer computes nothing. */

export interface BoletoParty {
  name: string;
  /** CPF (11 digits) or CNPJ (14 digits), with or without punctuation. */
  document: string;
  documentType: 'CPF' | 'CNPJ';
}

export interface BoletoPdfInput {
  beneficiary: BoletoParty & {
    /** "Agência/Código do beneficiário" as the bank prints it, e.g. "0001/123456-7". */
    agencyCode?: string;
  };
  payer: BoletoParty & {
    /** Postal address, already formatted; line breaks are kept (at most two lines print). */
    address?: string;
  };
  amountCents: number;
  /** Due date, YYYY-MM-DD (a calendar date). */
  dueDate: string;
  /** When the boleto was issued: "Data do documento" (in Brasília time) and the PDF's CreationDate. */
  issuedAt: Date | string;
  nossoNumero: string;
  documentNumber: string;
  /** 47 digits (punctuation ignored). */
  digitableLine: string;
  /** 44 digits (punctuation ignored); drawn as Interleaved 2 of 5. */
  barcode: string;
  /** The bank's 3-digit compensation code ("341"), or with its check digit ("341-7"). */
  bankCode: string;
  bankName: string;
  /** "Instruções (texto de responsabilidade do beneficiário)", one line each. */
  instructions: string[];
  /** Fine after the due date (multa), as text, e.g. "Após o vencimento, multa de 2,00%". */
  fineText?: string;
  /** Interest after the due date (juros/mora), as text, e.g. "Juros de 1,00% ao mês". */
  interestText?: string;
  /** The boleto's Pix BR Code (boleto híbrido): drawn as a QR code and printed for copy and paste. */
  pixCopyPaste?: string;
  /** "Local de pagamento"; a sensible default when absent. */
  paymentPlace?: string;
}
