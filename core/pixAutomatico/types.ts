/**
 * Pix Automático (recurring Pix authorised once by the payer) in the gateway's own words: what a
 * PSP's recurrence (`rec`), its QR location (`locrec`), a journey-1 authorisation request
 * (`solicrec`) and one cycle's charge (`cobr`) are to us, whatever API carries them. The API Pix
 * client (activities/provider/pixApi/pixAutomaticoClient.ts) maps the BCB's wire names onto
 * these with the tables in wireNames.ts. Pure types: no I/O here.
 */

export type RecurrencePeriod = 'WEEKLY' | 'MONTHLY' | 'QUARTERLY' | 'SEMIANNUAL' | 'ANNUAL';

/** After a missed due date: no retry, or up to 3 retries within 7 days (PERMITE_3R_7D). */
export type RecurrenceRetryPolicy = 'NO_RETRY' | 'THREE_RETRIES_IN_7_DAYS';

/** CRIADA → APROVADA | REJEITADA | EXPIRADA | CANCELADA. */
export type ProviderRecurrenceStatus = 'CREATED' | 'APPROVED' | 'REJECTED' | 'EXPIRED' | 'CANCELLED';

/** How the payer authorised (or will authorise): ativacao.tipoJornada; PENDING before approval. */
export type RecurrenceJourney = 'JOURNEY_1' | 'JOURNEY_2' | 'JOURNEY_3' | 'JOURNEY_4' | 'PENDING';

export type RecurrenceParty = 'PAYER' | 'PAYER_PSP' | 'RECEIVER' | 'RECEIVER_PSP';

export interface RecurrenceDebtor {
  documentType: 'CPF' | 'CNPJ';
  /** Digits only (a CNPJ may hold capital letters from 2026). */
  document: string;
  name: string;
}

export interface CreateRecurrenceRequest {
  /** vinculo.contrato: our reference (apiPixIds.recContractFor); how a retried create finds the first. */
  contract: string;
  /** vinculo.objeto: what the payer's app shows the payments are for (at most 35 characters). */
  object: string;
  debtor: RecurrenceDebtor;
  /** YYYY-MM-DD, the estimated first payment. */
  firstDueDate: string;
  /** YYYY-MM-DD; null for a recurrence without an end. */
  lastDueDate: string | null;
  period: RecurrencePeriod;
  /** A fixed amount per cycle (valorRec), or null when each cycle's amount varies. */
  amountCents: number | null;
  /** Only without a fixed amount: the floor a payer's maximum may not go below (valorMinimoRecebedor). */
  minimumAmountCents?: number | null;
  retryPolicy: RecurrenceRetryPolicy;
  /** A locrec for the QR of journeys 2 and 3 (loc). */
  locationId?: number | null;
  /** Journey 3: the txid of the cob whose payment authorises the recurrence (ativacao.dadosJornada.txid). */
  firstChargeTxid?: string | null;
}

export interface RecurrenceEnding {
  kind: 'REJECTED' | 'CANCELLED';
  /** The rules' code (AP13, AP14 rejected; ACCL, SLCR… cancelled). */
  code: string;
  /** Who cancelled; null for a rejection (always the payer's side). */
  by: RecurrenceParty | null;
}

export interface ProviderRecurrenceLocation {
  id: number;
  /** Scheme-less, as the PSP writes it ("pix.example.com/qr/v2/rec/…"). */
  url: string;
  createdAt: string;
  /** The recurrence it is linked to, once one is. */
  idRec: string | null;
}

export interface ProviderRecurrence {
  /** The PSP's id: R + R|N (retries or not) + ISPB + yyyyMMdd + 11 characters (29). */
  idRec: string;
  contract: string;
  object: string | null;
  debtor: RecurrenceDebtor | null;
  status: ProviderRecurrenceStatus;
  firstDueDate: string;
  lastDueDate: string | null;
  period: RecurrencePeriod;
  amountCents: number | null;
  minimumAmountCents: number | null;
  retryPolicy: RecurrenceRetryPolicy | null;
  journey: RecurrenceJourney | null;
  firstChargeTxid: string | null;
  location: ProviderRecurrenceLocation | null;
  /** The payer's PSP, once the recurrence is approved. */
  payerIspb: string | null;
  /** The QR to show (dadosQR.pixCopiaECola): journey 2, or 3 when read with the first cob's txid. */
  qrCode: { journey: RecurrenceJourney; copyPaste: string } | null;
  ending: RecurrenceEnding | null;
}

/** A journey-1 request to the payer's PSP: CRIADA → ENVIADA → RECEBIDA → ACEITA | REJEITADA | EXPIRADA | CANCELADA. */
export type ProviderAuthorizationRequestStatus =
  'CREATED' | 'SENT' | 'RECEIVED' | 'ACCEPTED' | 'REJECTED' | 'EXPIRED' | 'CANCELLED';

export interface PayerAccount {
  /** The payer's PSP (8 characters). */
  ispb: string;
  branch: string | null;
  account: string;
  documentType: 'CPF' | 'CNPJ';
  document: string;
}

export interface CreateAuthorizationRequest {
  idRec: string;
  /** RFC 3339; the rules keep an authorisation request open at most 30 days. */
  expiresAt: string;
  payerAccount: PayerAccount;
}

export interface ProviderAuthorizationRequest {
  /** idSolicRec: SC + ISPB + yyyyMMdd + 11 characters (29). */
  id: string;
  idRec: string;
  status: ProviderAuthorizationRequestStatus;
  expiresAt: string;
}

/** CRIADA → ATIVA → CONCLUIDA | EXPIRADA | REJEITADA | CANCELADA. */
export type ProviderCycleChargeStatus = 'CREATED' | 'ACTIVE' | 'PAID' | 'EXPIRED' | 'REJECTED' | 'CANCELLED';

/** One settlement attempt: SOLICITADA → AGENDADA → PAGA | CANCELADA | REJEITADA | EXPIRADA. */
export type CycleAttemptStatus = 'REQUESTED' | 'SCHEDULED' | 'PAID' | 'CANCELLED' | 'REJECTED' | 'EXPIRED';

/** AGND scheduled for the due date, NTAG a new attempt on the due date, RIFL a receiver's retry after it. */
export type CycleAttemptKind = 'SCHEDULED' | 'SAME_DAY_RETRY' | 'RECEIVER_RETRY';

export interface CycleAttempt {
  settlementDate: string;
  kind: CycleAttemptKind;
  status: CycleAttemptStatus;
  endToEndId: string | null;
  rejectionCode: string | null;
}

export interface ReceiverAccount {
  branch: string | null;
  account: string;
  accountType: 'CHECKING' | 'SAVINGS' | 'PAYMENT';
}

export interface CreateCycleChargeRequest {
  idRec: string;
  /** YYYY-MM-DD, the cycle's settlement date. */
  dueDate: string;
  amountCents: number;
  /** Move a due date on a non-business day to the next business day (the standard's default: true). */
  adjustToBusinessDay: boolean;
  /** Shown to the payer (at most 140 characters). */
  info?: string | null;
  /** Where the money goes: the receiver's account at its PSP (the standard requires it). */
  receiverAccount: ReceiverAccount;
}

export interface CyclePayment {
  endToEndId: string;
  amountCents: number;
  paidAt: string;
}

export interface ProviderCycleCharge {
  txid: string;
  idRec: string;
  status: ProviderCycleChargeStatus;
  dueDate: string;
  amountCents: number;
  retryPolicy: RecurrenceRetryPolicy | null;
  attempts: CycleAttempt[];
  /** Set when the whole charge was rejected (AC05, AM09, DENC, DS27, DTED, MIDI, MSUC, NITX, RC09…). */
  rejectionCode: string | null;
  cancellation: { by: RecurrenceParty; code: string } | null;
  payments: CyclePayment[];
}
