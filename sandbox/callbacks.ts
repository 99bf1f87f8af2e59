/**
 * Signed callback delivery with retries. Each event is serialised once, so every retry (and
 * every manual resend) carries byte-identical bodies and the same eventId: the gateway must
 * dedupe on eventId. The timestamp (and so the signature) is fresh per attempt, like real PSPs,
 * and uses the real clock, not the sandbox's injectable one, since receivers check freshness.
 * API Pix notifications ({"pix": [...]}, sandbox/pixApi/notifications.ts) go through here too,
 * with the same retries, log and (as an extra the standard does not ask for) signature headers.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from 'pino';
import { PROVIDER_CALLBACK_SIGNATURE_HEADER, PROVIDER_CALLBACK_TIMESTAMP_HEADER } from '../core/provider';
import { signProviderCallback } from '../core/pix/providerSignature';
import { MAX_CALLBACK_LOG, type CallbackAttempt, type SandboxCallbackEvent, type SandboxState } from './state';

/** 9 waits → 10 attempts, about 2.5 minutes in total. */
export const DEFAULT_CALLBACK_RETRY_DELAYS_MS = [500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 60_000];

/** What the attempt log needs to know about a delivery. */
interface Delivery {
  eventId: string;
  subjectId: string;
  /** The body's Content-Type (JSON unless said: Efí's boleto notices are form-encoded). */
  contentType?: string;
}

export interface CallbackDispatcherOptions {
  state: SandboxState;
  secret: string;
  logger: Logger;
  retryDelaysMs: readonly number[];
  timeoutMs: number;
}

export class CallbackDispatcher {
  private readonly stopper = new AbortController();
  private deliveries = 0;

  constructor(private readonly opts: CallbackDispatcherOptions) {
    // Every in-flight attempt and pending retry listens on this one signal.
    setMaxListeners(0, this.stopper.signal);
  }

  /** Fire and forget: the payer's request must not wait on the gateway. */
  deliver(event: SandboxCallbackEvent, url: string): void {
    this.deliverJson(
      { eventId: event.eventId, subjectId: 'boleto' in event ? event.boleto.id : event.charge.id, body: event },
      url,
    );
  }

  /** Any JSON body, with the same retries, log and signature; subjectId is the provider id the log files it under. */
  deliverJson(delivery: { eventId: string; subjectId: string; body: unknown }, url: string): void {
    const { eventId, subjectId } = delivery;
    void this.run({ eventId, subjectId }, url, JSON.stringify(delivery.body)).catch((err: unknown) => {
      this.opts.logger.error({ err, eventId }, 'callback delivery crashed');
    });
  }

  /**
   * A form-encoded body (`application/x-www-form-urlencoded`), as Efí's API Cobranças posts its
   * notifications (`notification=<token>`), with the same retries, log and signature.
   */
  deliverForm(delivery: { eventId: string; subjectId: string; fields: Record<string, string> }, url: string): void {
    const { eventId, subjectId } = delivery;
    const rawBody = new URLSearchParams(delivery.fields).toString();
    const contentType = 'application/x-www-form-urlencoded';
    void this.run({ eventId, subjectId, contentType }, url, rawBody).catch((err: unknown) => {
      this.opts.logger.error({ err, eventId }, 'callback delivery crashed');
    });
  }

  /** Deliveries not yet answered 2xx nor given up (in flight, or waiting for a retry). */
  get pending(): number {
    return this.deliveries;
  }

  /** Cancels in-flight attempts and pending retries (sandbox shutdown). */
  stop(): void {
    this.stopper.abort();
  }

  private async run(event: Delivery, url: string, rawBody: string): Promise<void> {
    const { retryDelaysMs, logger } = this.opts;
    this.deliveries++;
    try {
      for (let attempt = 1; !this.stopper.signal.aborted; attempt++) {
        const result = await this.attempt(event, url, rawBody, attempt);
        if (result.delivered) return;
        const delay = retryDelaysMs[attempt - 1];
        if (delay === undefined) {
          logger.warn({ eventId: event.eventId, attempts: attempt }, 'callback gave up');
          return;
        }
        await sleep(delay, this.stopper.signal);
      }
    } finally {
      this.deliveries--;
    }
  }

  private async attempt(event: Delivery, url: string, rawBody: string, attempt: number): Promise<CallbackAttempt> {
    const timestamp = Date.now();
    const record: CallbackAttempt = {
      eventId: event.eventId,
      chargeId: event.subjectId,
      url,
      attempt,
      at: new Date(timestamp).toISOString(),
      httpStatus: null,
      error: null,
      delivered: false,
    };
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': event.contentType ?? 'application/json',
          [PROVIDER_CALLBACK_TIMESTAMP_HEADER]: String(timestamp),
          [PROVIDER_CALLBACK_SIGNATURE_HEADER]: signProviderCallback(rawBody, timestamp, this.opts.secret),
        },
        body: rawBody,
        redirect: 'manual', // a redirect is a misconfiguration; following it could leak the payload
        signal: AbortSignal.any([AbortSignal.timeout(this.opts.timeoutMs), this.stopper.signal]),
      });
      await res.arrayBuffer().catch(() => undefined); // drain so the connection can be reused
      record.httpStatus = res.status;
      record.delivered = res.status >= 200 && res.status < 300;
    } catch (err) {
      const { name, message } = (err ?? {}) as { name?: unknown; message?: unknown };
      record.error = `${String(name ?? 'Error')}: ${String(message ?? err)}`;
    }
    this.log(record);
    return record;
  }

  private log(record: CallbackAttempt): void {
    const { callbacks } = this.opts.state;
    callbacks.push(record);
    if (callbacks.length > MAX_CALLBACK_LOG) callbacks.splice(0, callbacks.length - MAX_CALLBACK_LOG);
    // Never the headers: they carry the signature.
    const { eventId, chargeId, attempt, httpStatus, error, delivered } = record;
    this.opts.logger.info({ eventId, chargeId, attempt, httpStatus, error, delivered }, 'callback attempt');
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
