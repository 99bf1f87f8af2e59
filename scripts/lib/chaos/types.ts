/** The load's contract with the chaos runner (re-exported by load.ts, where it is documented). */
export interface LoadTarget {
  /** The API base URL. */
  apiUrl: string;
  /** The sandbox; its control routes are under /sandbox. */
  sandboxUrl: string;
  /** Bearer for the sandbox's control routes when set. */
  controlToken?: string;
  /** What to call with (the built stack speaks https with a test CA). */
  fetch: typeof globalThis.fetch;
  /** The operator CLI with the stack's environment; its stdout. */
  cli: (args: string[]) => Promise<string>;
}

export type OpKind =
  | 'sellerChargePaid'
  | 'sellerChargeExpired'
  | 'appCharge'
  | 'boleto'
  | 'refund'
  | 'withdrawal'
  | 'settlement'
  | 'payout'
  | 'checkout'
  | 'checkoutSession'
  | 'med';

export interface LoadOptions {
  /** Seeded: the same seed gives the same sequence of decisions (random.ts seededRandom). */
  random: () => number;
  /** Where webhook receivers bind ('127.0.0.1'). */
  receiverHost: string;
  /** Operations started per second (default 1.5: a 2-core machine beside the whole stack). */
  ratePerSecond?: number;
  /** Items per payout batch (default 100–2,000). */
  payoutItems?: { min: number; max: number };
  /** Payout items over the whole run at most (plan.ts payoutBudget; default: no bound). */
  payoutItemBudget?: number;
  /** Every attempt, for the report. */
  log: (event: LoadEvent) => void;
  /** Operations in flight at most (default 6); a drawn operation waits for a slot. */
  maxInFlight?: number;
  /** How often each kind is drawn (defaults: load.ts DEFAULT_WEIGHTS). */
  weights?: Partial<Record<OpKind, number>>;
  /** One attempt's client timeout (default 20 s). */
  requestTimeoutMs?: number;
  /** How long a call is retried before it counts as given up (default 4 minutes). */
  retryBudgetMs?: number;
  /** Share of successful creates replayed with their key afterwards (default 0.1). */
  replayRate?: number;
  /** Share of creates sent twice at once with one key (default 0.05). */
  concurrentRate?: number;
}

export interface LoadEvent {
  at: number;
  op: string;
  attempt: number;
  outcome: 'ok' | 'refused' | '5xx' | 'timeout' | 'connection';
  status?: number;
  key?: string;
  id?: string;
  /** The status the answer gave its resource (PROCESSING, PAID, …), when it names one. */
  resourceStatus?: string;
  ms: number;
}
