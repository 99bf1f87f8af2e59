/**
 * Data that crosses the workflow boundary for a merchant's PSP connection: ids and our own words
 * only. Its secrets stay in their envelopes until the activity opens them; the webhook URL, which
 * holds a path secret, is built in the activity and never crosses.
 */
import type { ConnectionTestRecord } from '../../core/connections/testRecord';

export interface PspConnectionTestInput {
  connectionId: string;
}

export type PspConnectionTestResult = ConnectionTestRecord;

export interface PspConnectionWebhookInput {
  connectionId: string;
  /** PUBLIC_BASE_URL, where the PSP reaches this gateway (the API's own). */
  publicBaseUrl: string;
}

export interface PspConnectionWebhookResult {
  outcome: 'registered' | 'already registered';
}

export interface PspConnectionRotateInput {
  connectionId: string;
  /** Which staged material to test and promote: its envelope's digest (db/connections pendingRef), never the envelope. */
  pending: string;
}

/** The new material's test; `rotated` when it passed and is the active material now. */
export interface PspConnectionRotateResult {
  rotated: boolean;
  test: ConnectionTestRecord;
}

/** Why a run failed, as its ApplicationFailure type: the API answers each with its own code. */
export const ConnectionFailureTypes = {
  /** Revoked (or gone) since the request was checked. */
  notActive: 'PspConnectionNotActive',
  /** The worker cannot open the material (no CREDENTIALS_ENCRYPTION_KEY, or another key). */
  unavailable: 'PspConnectionUnavailable',
  /** Another rotation (or a revocation) replaced the staged material before it was promoted. */
  superseded: 'PspConnectionRotationSuperseded',
  /** The PSP refused the webhook; the message is our words (activities/provider/connectionCheck.ts). */
  webhookRefused: 'PspWebhookRefused',
} as const;

/** One pass of the balance reading (activities/connections/balances.ts). */
export interface BalanceReadingResult {
  /** Active connections at the pass. */
  connections: number;
  /** Of them, read and stored. */
  read: number;
  /** Connections whose balance could not be read this pass (their ids; read again next pass). */
  failedConnections: string[];
}
