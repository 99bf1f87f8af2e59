/**
 * The Pix provider (PSP) contract as the gateway sees it. The bundled sandbox provider
 * implements it over HTTP; production points the same HTTP client at a real PSP adapter.
 * Pure types and error classes only: no I/O here.
 */

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
  qrCodeBase64: string; // PNG, base64 (no data: prefix)
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
}

/** Body of a provider → gateway callback (POST {callbackUrl}). */
export interface ProviderCallback {
  eventId: string; // unique per callback event; retries of the same event reuse it
  type: 'charge.paid';
  occurredAt: string;
  charge: ProviderCharge;
}

/** Headers the provider sets on a callback. Signature: lower-case hex HMAC-SHA256 of `${timestamp}.${rawBody}` with the callback secret. */
export const PROVIDER_CALLBACK_TIMESTAMP_HEADER = 'x-provider-timestamp';
export const PROVIDER_CALLBACK_SIGNATURE_HEADER = 'x-provider-signature';

/**
 * Errors the client raises. `transient` ones (timeouts, 5xx, connection refused, 429) may be
 * retried with the same idempotency key; permanent ones (4xx business refusals) must not be.
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly transient: boolean,
    readonly httpStatus: number | null = null,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

export interface PixProvider {
  issueCharge(req: IssueChargeRequest): Promise<ProviderCharge>;
  getCharge(providerChargeId: string): Promise<ProviderCharge>;
  /** The charge issued for our reference (charge id), or null when the provider has none. */
  findChargeByReference(reference: string): Promise<ProviderCharge | null>;
  /** Closes an ACTIVE charge so it can no longer be paid. Returns the final state (a PAID charge stays PAID). */
  closeCharge(providerChargeId: string, reason: 'EXPIRED' | 'CANCELLED'): Promise<ProviderCharge>;
  transfer(req: TransferRequest): Promise<ProviderTransfer>;
  getTransferByReference(reference: string): Promise<ProviderTransfer | null>;
}
