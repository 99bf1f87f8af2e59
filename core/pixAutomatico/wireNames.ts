/**
 * The BCB's API Pix names (release 2.9.0) for Pix Automático values, and ours, both ways: one table
 * per enumeration, so a value the standard adds later is a compile error here and not a silent
 * "undefined" in a workflow. Pure.
 */
import type {
  CycleAttemptKind,
  CycleAttemptStatus,
  ProviderAuthorizationRequestStatus,
  ProviderCycleChargeStatus,
  ProviderRecurrenceStatus,
  ReceiverAccount,
  RecurrenceJourney,
  RecurrenceParty,
  RecurrencePeriod,
  RecurrenceRetryPolicy,
} from './types';

export const PERIOD_TO_WIRE = {
  WEEKLY: 'SEMANAL',
  MONTHLY: 'MENSAL',
  QUARTERLY: 'TRIMESTRAL',
  SEMIANNUAL: 'SEMESTRAL',
  ANNUAL: 'ANUAL',
} as const satisfies Record<RecurrencePeriod, string>;
export type WirePeriod = (typeof PERIOD_TO_WIRE)[RecurrencePeriod];

export const RETRY_POLICY_TO_WIRE = {
  NO_RETRY: 'NAO_PERMITE',
  THREE_RETRIES_IN_7_DAYS: 'PERMITE_3R_7D',
} as const satisfies Record<RecurrenceRetryPolicy, string>;
export type WireRetryPolicy = (typeof RETRY_POLICY_TO_WIRE)[RecurrenceRetryPolicy];

export const ACCOUNT_TYPE_TO_WIRE = {
  CHECKING: 'CORRENTE',
  SAVINGS: 'POUPANCA',
  PAYMENT: 'PAGAMENTO',
} as const satisfies Record<ReceiverAccount['accountType'], string>;

export const REC_STATUS_FROM_WIRE = {
  CRIADA: 'CREATED',
  APROVADA: 'APPROVED',
  REJEITADA: 'REJECTED',
  EXPIRADA: 'EXPIRED',
  CANCELADA: 'CANCELLED',
} as const satisfies Record<string, ProviderRecurrenceStatus>;
export type WireRecStatus = keyof typeof REC_STATUS_FROM_WIRE;

export const JOURNEY_FROM_WIRE = {
  JORNADA_1: 'JOURNEY_1',
  JORNADA_2: 'JOURNEY_2',
  JORNADA_3: 'JOURNEY_3',
  JORNADA_4: 'JOURNEY_4',
  AGUARDANDO_DEFINICAO: 'PENDING',
} as const satisfies Record<string, RecurrenceJourney>;
export type WireJourney = keyof typeof JOURNEY_FROM_WIRE;

export const PARTY_FROM_WIRE = {
  USUARIO_PAGADOR: 'PAYER',
  PSP_PAGADOR: 'PAYER_PSP',
  USUARIO_RECEBEDOR: 'RECEIVER',
  PSP_RECEBEDOR: 'RECEIVER_PSP',
} as const satisfies Record<string, RecurrenceParty>;
export type WireParty = keyof typeof PARTY_FROM_WIRE;

export const SOLICREC_STATUS_FROM_WIRE = {
  CRIADA: 'CREATED',
  ENVIADA: 'SENT',
  RECEBIDA: 'RECEIVED',
  ACEITA: 'ACCEPTED',
  REJEITADA: 'REJECTED',
  EXPIRADA: 'EXPIRED',
  CANCELADA: 'CANCELLED',
} as const satisfies Record<string, ProviderAuthorizationRequestStatus>;
export type WireSolicRecStatus = keyof typeof SOLICREC_STATUS_FROM_WIRE;

export const COBR_STATUS_FROM_WIRE = {
  CRIADA: 'CREATED',
  ATIVA: 'ACTIVE',
  CONCLUIDA: 'PAID',
  EXPIRADA: 'EXPIRED',
  REJEITADA: 'REJECTED',
  CANCELADA: 'CANCELLED',
} as const satisfies Record<string, ProviderCycleChargeStatus>;
export type WireCobRStatus = keyof typeof COBR_STATUS_FROM_WIRE;

export const ATTEMPT_STATUS_FROM_WIRE = {
  SOLICITADA: 'REQUESTED',
  AGENDADA: 'SCHEDULED',
  PAGA: 'PAID',
  CANCELADA: 'CANCELLED',
  REJEITADA: 'REJECTED',
  EXPIRADA: 'EXPIRED',
} as const satisfies Record<string, CycleAttemptStatus>;
export type WireAttemptStatus = keyof typeof ATTEMPT_STATUS_FROM_WIRE;

export const ATTEMPT_KIND_FROM_WIRE = {
  AGND: 'SCHEDULED',
  NTAG: 'SAME_DAY_RETRY',
  RIFL: 'RECEIVER_RETRY',
} as const satisfies Record<string, CycleAttemptKind>;
export type WireAttemptKind = keyof typeof ATTEMPT_KIND_FROM_WIRE;

export const PERIOD_FROM_WIRE = invert(PERIOD_TO_WIRE);
export const RETRY_POLICY_FROM_WIRE = invert(RETRY_POLICY_TO_WIRE);

/**
 * Rejection codes of an attempt that reject the whole cobr (CobRTentativas' description); any
 * other code rejects that attempt only, and the cycle may still be retried.
 */
export const CHARGE_ENDING_REJECTIONS: ReadonlySet<string> = new Set([
  'AC05',
  'AM09',
  'DENC',
  'DS27',
  'DTED',
  'MIDI',
  'MSUC',
  'NITX',
  'RC09',
]);

function invert<K extends string, V extends string>(table: Record<K, V>): Record<V, K> {
  return Object.fromEntries(Object.entries(table).map(([k, v]) => [v, k])) as Record<V, K>;
}
