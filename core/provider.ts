/**
 * The Pix provider (PSP) contract as the gateway sees it. The bundled sandbox provider
 * implements it over HTTP; production points the same HTTP client at a real PSP adapter.
 * Pure types and error classes only: no I/O here.
 */
import type { EfiSplitConfigBody, PspAccountIdentity } from './connections/efiSplitConfig';
import type {
  CreateAuthorizationRequest,
  CreateCycleChargeRequest,
  CreateRecurrenceRequest,
  ProviderAuthorizationRequest,
  ProviderCycleCharge,
  ProviderRecurrence,
  ProviderRecurrenceLocation,
} from './pixAutomatico/types';

export type ProviderChargeStatus = 'ACTIVE' | 'PAID' | 'CANCELLED' | 'EXPIRED';

export interface ProviderPayer {
  name: string;
  document: string; // CPF (11 digits) or CNPJ (14 digits), digits only
  documentType: 'CPF' | 'CNPJ';
  email: string | null;
  phone: string | null;
  institution: string; // ISPB-backed bank name, e.g. "Banco Sandbox"
  ispb: string; // 8 digits
  agency: string;
  account: string;
}

export interface IssueChargeRequest {
  /** Gateway charge id; also sent as the Idempotency-Key header so a retry never issues twice. */
  reference: string;
  amountCents: number;
  description: string | null;
  expiresAt: string; // ISO 8601
  /** Where the provider POSTs signed payment callbacks. */
  callbackUrl: string;
  /** The merchant's name for the BR Code (field 59, what the payer's bank app shows); the Pix key stays the gateway's. */
  merchantName?: string | null;
}

export interface ProviderCharge {
  id: string; // provider charge id, e.g. "sbx_ch_..."
  reference: string;
  txid: string; // 26 to 35 alphanumerics
  status: ProviderChargeStatus;
  amountCents: number;
  copyPaste: string; // EMV BR Code with CRC16 in field 63
  qrCodeBase64: string; // PNG, base64 (no data: prefix); API Pix: only an issue draws it, reads answer ''
  expiresAt: string;
  createdAt: string;
  paidAt: string | null;
  endToEndId: string | null; // "E" + ISPB(8) + yyyyMMddHHmm + 11 alphanumerics = 32 chars
  payer: ProviderPayer | null;
}

export type PixKeyType = 'CPF' | 'CNPJ' | 'EMAIL' | 'PHONE' | 'EVP';

export interface TransferRequest {
  /** Business id (e.g. payout item id); sent as Idempotency-Key so a retried call pays once. */
  reference: string;
  amountCents: number;
  pixKey: string;
  pixKeyType: PixKeyType;
  recipientName: string;
  recipientDocument?: string | null;
}

export type ProviderTransferStatus = 'COMPLETED' | 'FAILED';

export interface ProviderTransfer {
  id: string;
  reference: string;
  status: ProviderTransferStatus;
  amountCents: number;
  pixKey: string;
  pixKeyType: PixKeyType;
  recipientName: string;
  endToEndId: string | null;
  failureCode: string | null; // e.g. "INVALID_PIX_KEY", "RECIPIENT_REFUSED"
  failureReason: string | null;
  createdAt: string;
  /** Set on a devolução: the endToEndId of the payment it returns (part of) to its payer. */
  returnOf?: string | null;
  /** A completed transfer its recipient sent back (in part): each devolução the PSP made, by its id. */
  returns?: Array<{ id: string; amountCents: number }>;
}

/**
 * The Pix directory's (DICT's) answer for a key, as the PSP relays it: who owns the key and at
 * which institution. A natural person's CPF comes masked as the central bank shows it to others
 * (`***.982.247-**`, digits 4 to 9); a CNPJ is public and comes in full.
 */
export interface PixKeyOwner {
  key: string;
  keyType: PixKeyType;
  owner: { name: string; documentType: 'CPF' | 'CNPJ'; document: string };
  bank: { ispb: string; name: string };
}

/**
 * A devolução (Pix return): sends back up to the paid amount of a received Pix payment, to its
 * payer, keyed by the payment's endToEndId. The answer is a transfer like any other (same
 * lookup by reference), whose recipient is the payer the provider knows.
 */
export interface PaymentReturnRequest {
  /** Business id (refund id); sent as Idempotency-Key. */
  reference: string;
  amountCents: number;
  endToEndId: string;
}

/** Body of a provider → gateway callback (POST {callbackUrl}). */
export interface ProviderCallback {
  eventId: string; // unique per callback event; retries of the same event reuse it
  type: 'charge.paid';
  occurredAt: string;
  charge: ProviderCharge;
}

/**
 * Boletos. The provider registers the boleto as a bank does: it assigns the nosso
 * número and answers FEBRABAN-valid barcode and digitable line (core/boletos), plus a Pix BR Code
 * for the same amount (boleto híbrido). Whichever is paid first settles it; the other is closed.
 */
export type ProviderBoletoStatus = 'REGISTERED' | 'PAID' | 'CANCELLED';

export interface BoletoPayerInfo {
  name: string;
  document: string; // CPF (11) or CNPJ (14) digits
  email?: string | null;
}

export interface IssueBoletoRequest {
  /** Gateway charge id; also the Idempotency-Key, so a retry never registers twice. */
  reference: string;
  amountCents: number;
  dueDate: string; // 'YYYY-MM-DD'
  payer: BoletoPayerInfo;
  /** One-off fine after the due date, in basis points of the amount (200 = 2 %). */
  fine?: { percentBps: number } | null;
  /** Simple interest after the due date, basis points per 30 days (100 = 1 % a month). */
  interest?: { monthlyBps: number } | null;
  /** Days after the due date during which neither fine nor interest is charged. */
  graceDays?: number;
  callbackUrl: string;
  /** Shown on the Pix side (BR Code field 59) and as beneficiary. */
  merchantName?: string | null;
}

export type BoletoPaymentVia = 'BOLETO' | 'PIX';
export type BoletoSettlement = 'D0' | 'D1';

export interface ProviderBoletoPayment {
  via: BoletoPaymentVia;
  paidAt: string; // ISO instant
  paidDate: string; // 'YYYY-MM-DD', Brasília calendar day of paidAt
  /** What the payer paid: may differ from the expected amount; settled for what was paid. */
  amountCents: number;
  /** Face amount plus fine and interest for the paid date (core/boletos/lateCharges.ts). */
  expectedAmountCents: number;
  fineCents: number;
  interestCents: number;
  daysLate: number;
  /** Paid after the due date. */
  late: boolean;
  amountMismatch: 'UNDERPAID' | 'OVERPAID' | null;
  settlement: BoletoSettlement;
  /** When the money reaches the beneficiary: paidDate (D0) or the next business day (D1). */
  creditDate: string;
  /** Pix payments only. */
  endToEndId: string | null;
  payer: ProviderPayer;
}

export interface ProviderBoleto {
  id: string; // "sbx_bol_..."
  reference: string;
  status: ProviderBoletoStatus;
  bankCode: string;
  nossoNumero: string;
  barcode: string; // 44 digits
  digitableLine: string; // 47 digits, no punctuation
  dueDate: string; // 'YYYY-MM-DD'
  amountCents: number;
  fine: { percentBps: number } | null;
  interest: { monthlyBps: number } | null;
  graceDays: number;
  payer: { name: string; document: string; email: string | null };
  /** The Pix side of the hybrid boleto; CLOSED once the boleto is paid by barcode or cancelled. */
  pix: { copyPaste: string; qrCodeBase64: string; txid: string; status: 'ACTIVE' | 'PAID' | 'CLOSED' };
  createdAt: string;
  paidAt: string | null;
  cancelledAt: string | null;
  payment: ProviderBoletoPayment | null;
}

/** Body of the provider → gateway callback when a boleto is paid (by barcode or by its Pix). */
export interface ProviderBoletoCallback {
  eventId: string;
  type: 'boleto.paid';
  occurredAt: string;
  boleto: ProviderBoleto;
}

export interface BoletoProvider {
  issueBoleto(req: IssueBoletoRequest): Promise<ProviderBoleto>;
  getBoleto(providerBoletoId: string): Promise<ProviderBoleto>;
  findBoletoByReference(reference: string): Promise<ProviderBoleto | null>;
  /** Cancels (baixa) an unpaid boleto and its Pix; a paid one is a ProviderError BOLETO_NOT_CANCELLABLE (409). */
  cancelBoleto(providerBoletoId: string): Promise<ProviderBoleto>;
}

/**
 * The provider's account statement for [from, to) (reconciliations): every Pix charge
 * paid (by paidAt) and every transfer or devolução (by createdAt) in the range.
 */
export interface StatementPayment {
  providerChargeId: string;
  /** Our charge id (the reference we issued the charge with). */
  reference: string;
  amountCents: number;
  endToEndId: string;
  paidAt: string;
}

export interface StatementTransfer {
  id: string;
  reference: string;
  kind: 'TRANSFER' | 'RETURN';
  status: ProviderTransferStatus;
  amountCents: number;
  endToEndId: string | null;
  /** RETURN only: the endToEndId of the payment it returns. */
  returnOf: string | null;
  createdAt: string;
}

export interface ProviderStatement {
  from: string;
  to: string;
  payments: StatementPayment[];
  transfers: StatementTransfer[];
}

/**
 * Money out at the PSP: sends a transfer to a Pix key and answers its outcome, finds it again by
 * our reference, and lists the day's sends for the statement. The Efí adapter
 * (activities/provider/efi/efiTransfers.ts) is one; another PSP's send API is one more.
 */
export interface TransferApi {
  transfer(req: TransferRequest): Promise<ProviderTransfer>;
  getTransferByReference(reference: string): Promise<ProviderTransfer | null>;
  /** The statement's TRANSFER entries of ours requested in [from, to). */
  sentBetween(range: { from: string; to: string }): Promise<StatementTransfer[]>;
  /** The PSP account's balance in cents (Efí: GET /v2/gn/saldo), where the PSP tells it. */
  balanceCents?(): Promise<number>;
}

/** The PSP account's balance, where the provider can tell it (operators, and sends it could not cover). */
export interface AccountBalanceProvider {
  accountBalanceCents(): Promise<number | null>;
}

export function isAccountBalanceProvider(p: unknown): p is AccountBalanceProvider {
  return typeof (p as Partial<AccountBalanceProvider> | null)?.accountBalanceCents === 'function';
}

export interface StatementProvider {
  getStatement(range: { from: string; to: string }): Promise<ProviderStatement>;
}

export function isStatementProvider(p: unknown): p is StatementProvider {
  return typeof (p as Partial<StatementProvider> | null)?.getStatement === 'function';
}

/**
 * Pix infractions (MED): the central bank's DICT, through the PSP, disputes a received payment
 * (fraud, a scam) and asks the receiving side to analyse it by a deadline. The gateway pulls
 * them (listInfractions) and answers each (answerInfraction: idempotent, the first answer stands).
 */
/**
 * OPEN: not answered; IN_DEFENCE: the account's defence (a REJECT) is in and the PSP analyses it;
 * ACCEPTED: the claim stands, the devolução is due (the account accepted, or the PSP upheld the claim
 * over the defence); REJECTED: the PSP dismissed the claim (the defence won); CANCELLED: the PSP
 * closed the case without a devolução (Efí: CANCELADA_EFI). The last three are final: the receiving
 * PSP decides a defended case (MED 2.0), not the account.
 */
export type ProviderInfractionStatus = 'OPEN' | 'IN_DEFENCE' | 'ACCEPTED' | 'REJECTED' | 'CANCELLED';
export type InfractionDecision = 'ACCEPT' | 'REJECT';

export interface ProviderInfraction {
  id: string; // "sbx_inf_..."
  endToEndId: string; // the disputed payment
  /** Our charge id (the reference we issued the charge with), when the provider knows it. */
  reference: string | null;
  /** The disputed amount; null when the PSP does not say (then the whole payment is disputed). */
  amountCents: number | null;
  reason: string; // e.g. FRAUD, SCAM, ACCOUNT_TAKEOVER
  status: ProviderInfractionStatus;
  openedAt: string;
  analysisDeadline: string;
  decision: InfractionDecision | null;
  justification: string | null;
  answeredAt: string | null;
  /** When the case reached a final status (Efí: dadosAnalise.finalizacao); absent or null while open. */
  closedAt?: string | null;
}

export interface InfractionProvider {
  /** Infractions opened at or after `since` (ISO instant), oldest first. */
  listInfractions(since: string): Promise<ProviderInfraction[]>;
  answerInfraction(id: string, answer: { decision: InfractionDecision; justification: string }): Promise<unknown>;
}

export function isInfractionProvider(p: unknown): p is InfractionProvider {
  return typeof (p as Partial<InfractionProvider> | null)?.listInfractions === 'function';
}

/**
 * A Pix received on the gateway's key, as the PSP reports it (API Pix: a notification's entry, or
 * GET /pix). A claim only: a charge is credited once the PSP's record of its cob confirms it.
 */
export interface ReceivedPix {
  endToEndId: string;
  /** The cob it paid; null for a Pix without one (a static code). */
  txid: string | null;
  amountCents: number;
  paidAt: string; // ISO instant
  payer: ProviderPayer | null;
}

/** The PSP's list of Pix received (the sweep for lost notifications reads it). */
export interface ReceivedPixProvider {
  /** Every Pix received in [from, to] (ISO instants), all pages. */
  listReceivedPix(range: { from: string; to: string }): Promise<ReceivedPix[]>;
}

export function isReceivedPixProvider(p: unknown): p is ReceivedPixProvider {
  return typeof (p as Partial<ReceivedPixProvider> | null)?.listReceivedPix === 'function';
}

/** A boleto the PSP lists as paid: its id there and our reference (the charge id), when it has one. */
export interface PaidBoleto {
  providerBoletoId: string;
  reference: string | null;
}

/** The PSP's list of boletos paid (Efí's listCharges by payment day): the sweep for lost boleto notices reads it. */
export interface PaidBoletoLister {
  /** Every boleto paid on the Brasília days from `fromDay` to `toDay` (YYYY-MM-DD), all pages. */
  listPaidBoletos(range: { fromDay: string; toDay: string }): Promise<PaidBoleto[]>;
}

export function isPaidBoletoLister(p: unknown): p is PaidBoletoLister {
  return typeof (p as Partial<PaidBoletoLister> | null)?.listPaidBoletos === 'function';
}

/** Headers the provider sets on a callback. Signature: lower-case hex HMAC-SHA256 of `${timestamp}.${rawBody}` with the callback secret. */
export const PROVIDER_CALLBACK_TIMESTAMP_HEADER = 'x-provider-timestamp';
export const PROVIDER_CALLBACK_SIGNATURE_HEADER = 'x-provider-signature';

/**
 * What a ProviderError may carry beyond its code. Neither field is for merchants: `message` is
 * written in our words so it may reach them; the provider's own text stays in `detail`.
 */
export interface ProviderErrorExtras {
  /** The provider asked us to wait this long before trying again (Retry-After on a 429 or 503). */
  retryAfterMs?: number | null;
  /** The provider's own words (problem title, detail, violations), truncated: for logs only. */
  detail?: string | null;
}

/**
 * Errors the client raises. `transient` ones (timeouts, 5xx, connection refused, 429) may be
 * retried with the same idempotency key; permanent ones (4xx business refusals) must not be.
 */
/**
 * A PSP account that holds a merchant's money, and the provider that speaks for it (issue 37): the
 * platform's account (PIX_API_*), or the merchant's own connection (the connected model).
 */
export interface PspAccount {
  /** The merchant's own PSP connection; null: the platform's account. */
  connectionId: string | null;
  provider: PixProvider;
  /** The PSP's own division at settlement (Efí's Split Pix), on a connected account; absent on the platform's. */
  splits?: PspSplits;
  /**
   * Boletos issued and paid on this account (Efí's API Cobranças on a connected one); absent on
   * the platform's, whose boletos are the worker's boleto provider (ChargeDeps.boletos).
   */
  boletos?: BoletoProvider;
  /**
   * Pix Automático on this account (issue 39: recurrences and their cycle charges, API Pix 2.9.0):
   * the platform's and a connected one's API Pix; absent where the account has none (then a
   * subscription is refused, SubscriptionsUnavailable).
   */
  recurrences?: RecurrenceProvider;
}

/**
 * The receiver's side of Pix Automático as the subscription activities use it; the API Pix client
 * (activities/provider/pixApi/pixAutomaticoClient.ts) is one. Every call is idempotent or finds
 * what an earlier attempt created (see that file); null: the PSP has no such resource.
 */
export interface RecurrenceProvider {
  createLocation(): Promise<ProviderRecurrenceLocation>;
  /** Creates the rec, or answers the one an earlier attempt (since `firstAttemptAt`) created for the same contract. */
  createRecurrence(req: CreateRecurrenceRequest, firstAttemptAt: string): Promise<ProviderRecurrence>;
  /** With the txid of journey 3's first cob, `qrCode` is the composite QR (cob + rec). */
  getRecurrence(idRec: string, opts?: { firstChargeTxid?: string }): Promise<ProviderRecurrence | null>;
  cancelRecurrence(idRec: string): Promise<ProviderRecurrence>;
  createAuthorizationRequest(req: CreateAuthorizationRequest): Promise<ProviderAuthorizationRequest>;
  putCycleCharge(txid: string, req: CreateCycleChargeRequest): Promise<ProviderCycleCharge>;
  getCycleCharge(txid: string): Promise<ProviderCycleCharge | null>;
  cancelCycleCharge(txid: string): Promise<ProviderCycleCharge>;
  retryCycleCharge(txid: string, settlementDate: string): Promise<ProviderCycleCharge>;
  /** Registers where the PSP notifies recurrences (`<url>/rec`) and cycle charges (`<url>/cobr`). */
  putRecurrenceWebhook(webhookUrl: string): Promise<void>;
  putCycleChargeWebhook(webhookUrl: string): Promise<void>;
}

/** Split Pix on one connected account: where the platform's fee goes, and the two calls an issue makes. */
export interface PspSplits {
  /** The platform's own account at this PSP (PLATFORM_PSP_ACCOUNT_*); null when not configured. */
  platform: PspAccountIdentity | null;
  /** The PSP's API origin: a recipient's account is at the same PSP when its connection has the same. */
  pspOrigin: string;
  /** Writes configuration `id` (idempotent: the same id and body again change nothing). */
  putSplitConfig(id: string, body: EfiSplitConfigBody): Promise<unknown>;
  /** Links cob `txid` to configuration `id` (already linked to it: success). */
  linkCob(txid: string, id: string): Promise<void>;
}

/**
 * Which account a merchant's money is at. A merchant with no connection is in the platform model;
 * with an active one, in the connected model; with a revoked one (and no active), its calls fail
 * with PSP_CONNECTION_REVOKED: they are never asked of the platform's account instead.
 */
export interface PspAccounts {
  forMerchant(merchantId: string): Promise<PspAccount>;
  /** The account a charge or transfer was made at (null: the platform's). */
  forConnection(connectionId: string | null): Promise<PspAccount>;
}

/** The one directory where every merchant is in the platform model (unit tests, a deployment without connections). */
export function platformOnly(provider: PixProvider, recurrences?: RecurrenceProvider): PspAccounts {
  const account: PspAccount = { connectionId: null, provider, ...(recurrences ? { recurrences } : {}) };
  return {
    forMerchant: async () => account,
    forConnection: async (connectionId) => {
      if (connectionId === null) return account;
      throw new ProviderError(`PSP connection ${connectionId} is not known here`, PSP_CONNECTION_UNAVAILABLE, false);
    },
  };
}

/** The account model of a merchant with no connection (ACCOUNT_MODEL_DEFAULT): the platform's account, or none. */
export type AccountModelDefault = 'platform' | 'connected';

/** No connection, and the platform holds nobody's money (ACCOUNT_MODEL_DEFAULT=connected): register one first. */
export const PSP_CONNECTION_REQUIRED = 'PSP_CONNECTION_REQUIRED';

/** A merchant's connection was revoked: its charges and sends stop, with this code, until a new one is registered. */
export const PSP_CONNECTION_REVOKED = 'PSP_CONNECTION_REVOKED';
/** A connection that cannot be used (its material does not open, the master key is not configured). */
export const PSP_CONNECTION_UNAVAILABLE = 'PSP_CONNECTION_UNAVAILABLE';

export class ProviderError extends Error {
  readonly retryAfterMs: number | null;
  readonly detail: string | null;

  constructor(
    message: string,
    readonly code: string,
    readonly transient: boolean,
    readonly httpStatus: number | null = null,
    extras: ProviderErrorExtras = {},
  ) {
    super(message);
    this.name = 'ProviderError';
    this.retryAfterMs = extras.retryAfterMs ?? null;
    this.detail = extras.detail ?? null;
  }
}

export interface PixProvider {
  issueCharge(req: IssueChargeRequest): Promise<ProviderCharge>;
  /** A charge the provider has no record of is a ProviderError CHARGE_NOT_FOUND (404). */
  getCharge(providerChargeId: string): Promise<ProviderCharge>;
  /** The charge issued for our reference (charge id), or null when the provider has none. */
  findChargeByReference(reference: string): Promise<ProviderCharge | null>;
  /** Closes an ACTIVE charge so it can no longer be paid. Returns the final state (a PAID charge stays PAID). */
  closeCharge(providerChargeId: string, reason: 'EXPIRED' | 'CANCELLED'): Promise<ProviderCharge>;
  transfer(req: TransferRequest): Promise<ProviderTransfer>;
  /** A devolução of a received payment (see PaymentReturnRequest); FAILED when it exceeds what is left of the payment. */
  returnPayment(req: PaymentReturnRequest): Promise<ProviderTransfer>;
  getTransferByReference(reference: string): Promise<ProviderTransfer | null>;
  /**
   * The devolução made for our reference of this payment, once finished, or null when the provider
   * has none. A devolução still in processing is a transient ProviderError: ask again later.
   */
  getPaymentReturn(req: { reference: string; endToEndId: string }): Promise<ProviderTransfer | null>;
  /**
   * Who owns a Pix key (DICT look-up, key in its stored form), or null when the directory has no
   * such key. Absent when the PSP offers no look-up (Efí has none): the send then carries the
   * recipient's document and the PSP refuses a key of anyone else.
   */
  lookUpPixKey?(key: string): Promise<PixKeyOwner | null>;
}
