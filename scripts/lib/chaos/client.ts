/**
 * One HTTP call of the load, retried the way a careful client retries: on a 5xx, a 429, a client
 * timeout or a connection error, with the same idempotency key and body, backing off 0.5 s
 * doubling to 5 s, for up to the retry budget; then it is given up. Every attempt is logged.
 */
import { signedRequestHeaders } from '../../../core/signatures/requestSignature';
import type { LoadStats } from './stats';
import type { LoadTarget } from './types';

export interface Credentials {
  merchantId: string;
  clientId: string;
  clientSecret: string;
}

/** Where a bearer token comes from (a signed-in user), and how to drop one the API refused. */
export interface BearerSource {
  bearer: () => Promise<string>;
  invalidate: (token: string) => void;
}

export interface CallSpec {
  /** For the log and the counters: `<kind>.<step>`. */
  op: string;
  base: 'api' | 'sandbox';
  method: string;
  path: string;
  body?: unknown;
  creds?: Credentials;
  /** Sign the request with the client secret (payouts, P0 checkouts). */
  signed?: boolean;
  user?: BearerSource;
  key?: string;
  /** `x-idempotency-key` unless told (`Idempotency-Key` on P0); null: the key travels in the body (payouts). */
  keyHeader?: string | null;
  /** The id of the answer, for the log and the idempotency checks. */
  idOf?: (body: any) => string | undefined;
}

export interface CallResult {
  ok: boolean;
  gaveUp: boolean;
  status?: number;
  body: any;
  headers?: Headers;
}

const INITIAL_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 5_000;

export interface ClientSettings {
  requestTimeoutMs: number;
  retryBudgetMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function isTimeout(err: unknown): boolean {
  const e = err as { name?: string; cause?: { code?: string } };
  return (
    e?.name === 'TimeoutError' ||
    e?.name === 'AbortError' ||
    e?.cause?.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e?.cause?.code === 'UND_ERR_BODY_TIMEOUT'
  );
}

function parse(text: string): any {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return text;
  }
}

/** The status an answer gives its resource (P0 answers wrap it in `data`). */
function statusOf(body: any): string | undefined {
  const status = body?.status ?? body?.data?.status;
  return typeof status === 'string' ? status : undefined;
}

export class LoadClient {
  private lastTimestamp = 0;

  constructor(
    readonly target: LoadTarget,
    private readonly stats: LoadStats,
    private readonly settings: ClientSettings,
  ) {}

  private async headersFor(
    spec: CallSpec,
    raw: string | undefined,
  ): Promise<{ headers: Record<string, string>; bearer?: string }> {
    let headers: Record<string, string> = {};
    if (spec.creds && spec.signed) {
      // Each attempt is signed afresh: a signature is accepted once, and only within ±300 s.
      const ts = (this.lastTimestamp = Math.max(Date.now(), this.lastTimestamp + 1));
      headers = signedRequestHeaders({
        ...spec.creds,
        method: spec.method,
        path: spec.path,
        rawBody: raw ?? '',
        timestampMs: ts,
      });
    } else if (spec.creds) {
      headers = { 'x-client-id': spec.creds.clientId, 'x-client-secret': spec.creds.clientSecret };
    }
    if (raw !== undefined) headers['content-type'] = 'application/json';
    if (spec.key && spec.keyHeader !== null) headers[spec.keyHeader ?? 'x-idempotency-key'] = spec.key;
    if (spec.base === 'sandbox' && this.target.controlToken)
      headers.authorization = `Bearer ${this.target.controlToken}`;
    let bearer: string | undefined;
    if (spec.user) {
      bearer = await spec.user.bearer();
      headers.authorization = `Bearer ${bearer}`;
    }
    return { headers, bearer };
  }

  async call(spec: CallSpec): Promise<CallResult> {
    const started = Date.now();
    const raw = spec.body === undefined ? undefined : JSON.stringify(spec.body);
    const url = `${spec.base === 'api' ? this.target.apiUrl : this.target.sandboxUrl}${spec.path}`;
    let backoff = INITIAL_BACKOFF_MS;
    for (let attempt = 1; ; attempt++) {
      const t0 = Date.now();
      let outcome: 'ok' | 'refused' | '5xx' | 'timeout' | 'connection';
      let status: number | undefined;
      let body: any = null;
      let headers: Headers | undefined;
      let bearer: string | undefined;
      try {
        const prepared = await this.headersFor(spec, raw);
        bearer = prepared.bearer;
        const res = await this.target.fetch(url, {
          method: spec.method,
          headers: prepared.headers,
          body: raw,
          signal: AbortSignal.timeout(this.settings.requestTimeoutMs),
        });
        status = res.status;
        headers = res.headers;
        body = parse(await res.text());
        outcome = status >= 500 ? '5xx' : status >= 400 ? 'refused' : 'ok';
      } catch (err) {
        outcome = isTimeout(err) ? 'timeout' : 'connection';
      }
      const id = outcome === 'ok' && spec.idOf ? spec.idOf(body) : undefined;
      const resourceStatus = statusOf(body);
      const ms = Date.now() - t0;
      this.stats.attempt({ at: t0, op: spec.op, attempt, outcome, status, key: spec.key, id, resourceStatus, ms });
      if (outcome === 'ok') return { ok: true, gaveUp: false, status, body, headers };
      // A token the API no longer takes (expired, or its session store lost it): sign in again.
      if (status === 401 && spec.user && bearer) spec.user.invalidate(bearer);
      const retryable = outcome !== 'refused' || status === 429 || (status === 401 && !!spec.user);
      if (!retryable) {
        this.stats.refusal(spec.op, status, body?.error?.code);
        return { ok: false, gaveUp: false, status, body, headers };
      }
      if (Date.now() - started + backoff > this.settings.retryBudgetMs)
        return { ok: false, gaveUp: true, status, body, headers };
      await sleep(backoff);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
    }
  }

  /**
   * The operator CLI, retried like a call (the database or the sandbox may be down). `done`, when
   * given, is asked before each retry: a command whose first run took effect (its output lost)
   * may fail when run again (a charge paid twice), so the retry stops once the effect is seen.
   */
  async cli(op: string, args: string[], done?: () => Promise<boolean>): Promise<{ ok: boolean; stdout: string }> {
    const started = Date.now();
    let backoff = INITIAL_BACKOFF_MS;
    for (let attempt = 1; ; attempt++) {
      const t0 = Date.now();
      try {
        const stdout = await this.target.cli(args);
        this.stats.attempt({ at: t0, op, attempt, outcome: 'ok', ms: Date.now() - t0 });
        return { ok: true, stdout };
      } catch {
        // The CLI's error text may name what it was given: not logged.
        this.stats.attempt({ at: t0, op, attempt, outcome: 'connection', ms: Date.now() - t0 });
      }
      if (Date.now() - started + backoff > this.settings.retryBudgetMs) return { ok: false, stdout: '' };
      await sleep(backoff);
      backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
      if (done && (await done().catch(() => false))) return { ok: true, stdout: '' };
    }
  }
}
