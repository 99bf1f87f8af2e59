/** In-memory state of the sandbox PSP. Lost on restart by design: it is a test double. */
import type {
  PixKeyType,
  ProviderBoleto,
  ProviderBoletoCallback,
  ProviderCallback,
  ProviderCharge,
  ProviderTransfer,
} from '../core/provider';
import type { SandboxAccount } from './accounts';
import type { SandboxInfraction } from './infractions';
import { createPixAutomaticoState, type PixAutomaticoState } from './pixApi/recs';

export interface ChargeRecord {
  /** Stored status is ACTIVE/PAID/CANCELLED; EXPIRED is derived on read from expiresAt. */
  charge: ProviderCharge;
  /** Not part of ProviderCharge: where the paid callback goes; null for a cob, notified through the webhook of its chave. */
  callbackUrl: string | null;
  description: string | null;
  /** Set when paid; resends reuse it so the gateway sees the same eventId. */
  paidEvent: ProviderCallback | null;
  /** Test control only: the amount the statement reports instead of the paid one (a provider-side disagreement). */
  statementAmountCents?: number;
  /** Set when the charge was created through API Pix (PUT /cob/{txid}): the cob's own fields. */
  cob?: CobRecord;
}

/** A cob's debtor (devedor): a natural person (cpf) or a company (cnpj). */
export type CobDebtor = { cpf: string; nome: string } | { cnpj: string; nome: string };

/** What the receiving user sets on a cob (PUT or PATCH): one revision. Absent optional fields are null. */
export interface CobContent {
  /** calendario.expiracao: seconds from creation. */
  expiracao: number;
  devedor: CobDebtor | null;
  /** valor.original, in cents. */
  amountCents: number;
  /** valor.modalidadeAlteracao: 1 when the payer may change the amount. */
  modalidadeAlteracao: 0 | 1;
  chave: string;
  solicitacaoPagador: string | null;
  infoAdicionais: { nome: string; valor: string }[] | null;
}

export interface CobRecord {
  /** Index = revisao; the last one is current. The standard keeps each revision's content. */
  revisions: CobContent[];
  /** The payload location: its id (loc.id), URL without scheme, and the capability token it ends in. */
  loc: { id: number; location: string; token: string; criacao: string };
  /** Efí's Split Pix: the split configuration (and its revision) linked to the cob, divided at settlement. */
  split?: { configId: string; revisao: number } | null;
}

/** One share of a Split Pix configuration: a percentage ("60.00") or a fixed amount in cents. */
export interface SplitShare {
  tipo: 'porcentagem' | 'fixo';
  /** Hundredths: of a percent (porcentagem, 6000 = 60.00 %) or of a real (fixo, cents). */
  hundredths: number;
}

/** What a revision of a split configuration says (Efí's PUT /v2/gn/split/config/{id} body). */
export interface SplitConfigContent {
  descricao: string;
  txid: string | null;
  imediato: boolean;
  divisaoTarifa: 'assumir_total' | 'proporcional';
  minhaParte: SplitShare;
  repasses: (SplitShare & { favorecido: { cpf?: string; cnpj?: string; conta: string } })[];
}

/** A Split Pix configuration of one account (sandbox/efi/splits.ts); index = revisao. */
export interface SplitConfigRecord {
  id: string;
  accountId: string;
  revisions: (SplitConfigContent & { criacao: string })[];
}

/** A devolução asked through API Pix (PUT /pix/{e2eid}/devolucao/{id}); the money moves as a transfer (returnOf). */
export interface DevolucaoRecord {
  endToEndId: string;
  /** The client's id for this devolução, unique per endToEndId. */
  id: string;
  /** The transfer that carries the money (transfers.ts), COMPLETED or FAILED from the start. */
  transferId: string;
  /** ReturnIdentification of the pacs.004: "D" + ISPB + yyyyMMddHHmm + 11 alphanumerics. */
  rtrId: string;
  amountCents: number;
  descricao: string | null;
  requestedAt: string;
  /** Until then it reads EM_PROCESSAMENTO; from then on DEVOLVIDO or NAO_REALIZADO (the transfer's outcome). */
  settlesAt: string;
}

/** ISO 20022 reason a sent Pix was not made, as Efí reports it (gnExtras.erro). */
export interface EfiSendError {
  codigo: string;
  origem: string;
  motivo: string;
}

/** A recipient's return of (part of) a Pix the account sent through Efí's route. */
export interface EfiSendReturn {
  id: string;
  rtrId: string;
  amountCents: number;
  at: string;
}

/**
 * A Pix sent through Efí's PUT /v3/gn/pix/{idEnvio} (sandbox/efi/). Its money moves as the
 * transfer `transferId` (state.transfers, reference = idEnvio); this keeps what Efí shows on top.
 */
export interface EfiSendRecord {
  idEnvio: string;
  endToEndId: string;
  transferId: string;
  amountCents: number;
  /** pagador.chave: the account's key it was sent from (its webhook gets the outcome). */
  payerKey: string;
  infoPagador: string | null;
  recipientKey: string;
  /** favorecido.cpf or .cnpj when the client named one. */
  recipientDocument: string | null;
  requestedAt: string;
  /** Until then it reads EM_PROCESSAMENTO; from then on `outcome` (derived on read, like DevolucaoRecord). */
  settlesAt: string;
  /** Decided at acceptance. */
  outcome: 'REALIZADO' | 'NAO_REALIZADO';
  erro: EfiSendError | null;
  devolucoes: EfiSendReturn[];
}

/** A webhook registered through API Pix for one of the receiving user's keys. */
export interface PixWebhookRecord {
  chave: string;
  webhookUrl: string;
  criacao: string;
}

export interface BoletoRecord {
  boleto: ProviderBoleto;
  callbackUrl: string;
  /** Set when paid (by barcode or Pix); resends reuse it so the gateway sees the same eventId. */
  paidEvent: ProviderBoletoCallback | null;
  /**
   * Issued through Efí's API Cobranças (efi/cobrancas.ts) on one account: its numeric charge_id,
   * the account it is paid into, the notification_url and the token of the last notification.
   * Absent: a /v1 boleto, the default account's.
   */
  efi?: { chargeId: number; accountId: string; notificationUrl: string | null; token: string | null };
}

/** What the callback dispatcher sends: a charge or a boleto event. */
export type SandboxCallbackEvent = ProviderCallback | ProviderBoletoCallback;

export interface IdempotencyEntry {
  fingerprint: string;
  resourceId: string;
}

export interface Faults {
  errorRate: number;
  latencyMs: number;
  timeoutRate: number;
  /** The first n identical calls answer 503 unprocessed (deterministic errorRate). */
  failFirst: number;
  /** The next n identical calls are processed but their answers lost (deterministic timeoutRate). */
  dropFirst: number;
  /** When set, the faults apply to calls to these exact paths only (absent: to every call). */
  paths?: string[];
  /** Seed of the errorRate/timeoutRate draws (null: Math.random); the same seed, the same schedule. */
  seed: number | null;
}

export const NO_FAULTS: Faults = Object.freeze({
  errorRate: 0,
  latencyMs: 0,
  timeoutRate: 0,
  failFirst: 0,
  dropFirst: 0,
  seed: null,
});

export interface CallbackAttempt {
  eventId: string;
  /** Provider id of the charge (sbx_ch_…) or boleto (sbx_bol_…) the event is about. */
  chargeId: string;
  url: string;
  attempt: number;
  at: string;
  /** HTTP status of the receiver's answer; null on network error or timeout. */
  httpStatus: number | null;
  error: string | null;
  delivered: boolean;
}

export interface TransferReferenceStats {
  /** POST /v1/transfers calls naming this reference, replays included. */
  requests: number;
  /** Distinct transfers created (money moved or attempted): must be 1 for "paid once". */
  created: number;
}

/** A Pix key the directory (DICT) knows, registered by a test control (sandbox/dict.ts). */
export interface DictEntry {
  key: string;
  keyType: PixKeyType;
  ownerName: string;
  /** CPF (11) or CNPJ (14) digits. */
  ownerDocument: string;
  ispb: string;
  bankName: string;
}

export interface SandboxState {
  /**
   * Counts the changes: every write the journal records (journal.ts' revisingJournal) and a cobr's
   * payment (in memory only). A balance kept between reads (balances.ts) holds while it is unchanged.
   */
  revision: number;
  /** Efí's Split Pix configurations, by id. */
  splitConfigs: Map<string, SplitConfigRecord>;
  /** Accounts made by POST /sandbox/accounts, by id (the default account is configuration: accounts.ts). */
  accounts: Map<string, SandboxAccount>;
  charges: Map<string, ChargeRecord>;
  chargeIdempotency: Map<string, IdempotencyEntry>;
  boletos: Map<string, BoletoRecord>;
  boletoIdempotency: Map<string, IdempotencyEntry>;
  transfers: Map<string, ProviderTransfer>;
  transferIdempotency: Map<string, IdempotencyEntry>;
  transferStats: Map<string, TransferReferenceStats>;
  /** Test control only, by transfer id: the amount the statement reports instead (not journaled). */
  transferStatementAmounts: Map<string, number>;
  /** Pix infractions (MED) opened against paid charges, by id. */
  infractions: Map<string, SandboxInfraction>;
  /** Test control only, by key: the Pix directory's registered e-mail, phone and EVP keys (not journaled). */
  dictKeys: Map<string, DictEntry>;
  /** API Pix devoluções, by `${endToEndId}/${id}`. */
  devolucoes: Map<string, DevolucaoRecord>;
  /** API Pix webhooks, by chave. */
  pixWebhooks: Map<string, PixWebhookRecord>;
  /** Pix Automático (pixApi/recs.ts): recurrences, locations, requests, cobrs, webhooks; in memory only. */
  pixAutomatico: PixAutomaticoState;
  /** Pix sent through Efí's route, by idEnvio. */
  efiSends: Map<string, EfiSendRecord>;
  /** What POST /sandbox/efi/saldo added to the Efí balance's arithmetic (sandbox/efi/balance.ts). */
  efiBalanceAdjustmentCents: number;
  /** Test control only: while true, the Efí send webhooks are dropped (not journaled). */
  efiWebhooksPaused: boolean;
  faults: Faults;
  /** Oldest entries are dropped past MAX_CALLBACK_LOG so a long-running sandbox stays bounded. */
  callbacks: CallbackAttempt[];
}

export const MAX_CALLBACK_LOG = 5_000;

export function createSandboxState(): SandboxState {
  return {
    revision: 0,
    accounts: new Map(),
    splitConfigs: new Map(),
    charges: new Map(),
    chargeIdempotency: new Map(),
    boletos: new Map(),
    boletoIdempotency: new Map(),
    transfers: new Map(),
    transferIdempotency: new Map(),
    transferStats: new Map(),
    transferStatementAmounts: new Map(),
    infractions: new Map(),
    dictKeys: new Map(),
    devolucoes: new Map(),
    pixWebhooks: new Map(),
    pixAutomatico: createPixAutomaticoState(),
    efiSends: new Map(),
    efiBalanceAdjustmentCents: 0,
    efiWebhooksPaused: false,
    faults: { ...NO_FAULTS },
    callbacks: [],
  };
}
