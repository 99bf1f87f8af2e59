/**
 * GET /c/:id/events: the checkout's status as server-sent events. The first event is the current
 * status, then one event per change; the stream ends after a final status (paid, expired…) or
 * after `maxLifetimeMs` (the browser's EventSource reconnects by itself), so no connection is held
 * forever. A comment line every 15 s keeps proxies from closing an idle stream.
 *
 * The route is public and needs only a checkout id, so open streams are bounded:
 * - at most `perCheckout` per checkout and `perIp` per client address (req.ip under TRUST_PROXY,
 *   keyed as the per-IP request limit keys it, so an IPv6 client cannot spread over its /56);
 *   beyond either, 429 TOO_MANY_STREAMS with Retry-After before any database read, and the page
 *   polls GET /c/:id/status instead;
 * - a slot is freed when its response closes, whatever closed it: the client went away, the
 *   server ended the stream (final status, lifetime) or answered an error;
 * - the open streams of one checkout share one status read every `pollMs`, and the next read
 *   waits for the last: a slow database gets one query per followed checkout, never a pile.
 * The counts live in this process's memory, as the request limit's do: each API instance allows
 * its own.
 */
import type { Request, Response } from 'express';
import { ipKeyGenerator } from 'express-rate-limit';
import type { Sequelize } from 'sequelize';
import { ApiError } from '../../errors/apiError';
import { loadCheckoutStatus, type PageStatus } from './store';

export interface StreamOptions {
  pollMs: number;
  maxLifetimeMs: number;
  /** Open streams per checkout: a buyer's tabs and devices, not a crowd. */
  perCheckout: number;
  /** Open streams per client address: buyers behind one NAT share it, so more than one checkout's worth. */
  perIp: number;
}

export const DEFAULT_STREAM_OPTIONS: StreamOptions = {
  pollMs: 1_000,
  maxLifetimeMs: 5 * 60_000,
  perCheckout: 3,
  perIp: 20,
};

/**
 * When to try a stream again. Slots free as buyers leave or streams end (five minutes at most);
 * meanwhile /status answers the same, and the page polls it every 3 s.
 */
const RETRY_AFTER_SECONDS = 30;

type Status = { status: PageStatus; completionUrl: string | null };
type Listener = (s: Status) => void;

export function statusBody(s: Status): { status: PageStatus; completionUrl?: string } {
  return s.status === 'PAID' && s.completionUrl
    ? { status: s.status, completionUrl: s.completionUrl }
    : { status: s.status };
}

function tooManyStreams(scope: 'checkout' | 'client', max: number, id: string): ApiError {
  const per = scope === 'checkout' ? 'for one checkout' : 'from one client address';
  return new ApiError(
    429,
    'TOO_MANY_STREAMS',
    `at most ${max} status streams may be open ${per}; poll GET /c/${id}/status instead, or retry after Retry-After`,
    {
      scope,
      maxOpenStreams: max,
      // The error handler sends it as the Retry-After header too.
      retryAfterSeconds: RETRY_AFTER_SECONDS,
    },
  );
}

function decrement(counts: Map<string, number>, key: string): void {
  const n = (counts.get(key) ?? 0) - 1;
  if (n > 0) counts.set(key, n);
  else counts.delete(key);
}

export class StatusStreams {
  private readonly perCheckout = new Map<string, number>();
  private readonly perClient = new Map<string, number>();
  /** One shared status read per followed checkout. */
  private readonly watches = new Map<string, { listeners: Set<Listener>; timer: NodeJS.Timeout }>();

  constructor(
    private readonly sequelize: Sequelize,
    private readonly opts: StreamOptions,
  ) {}

  /**
   * Streams checkout `id`'s status on `res`, or throws 429 when a cap is reached. Answers false,
   * having written nothing, when the checkout does not exist (the caller answers 404).
   */
  async serve(id: string, req: Request, res: Response): Promise<boolean> {
    const release = this.acquire(id, ipKeyGenerator(req.ip ?? ''));
    let ended = false;
    let stop = () => {};
    // Every way a response ends passes here, the 404 and error answers included: the slot is freed once.
    res.once('close', () => {
      ended = true;
      release();
      stop();
    });
    const first = await loadCheckoutStatus(this.sequelize, id);
    if (!first) return false;
    if (ended) return true; // the client left while the status was read

    res.status(200);
    res.setHeader('content-type', 'text/event-stream; charset=utf-8');
    res.setHeader('cache-control', 'no-store');
    res.setHeader('x-accel-buffering', 'no');
    res.flushHeaders();
    const final = (s: PageStatus) => s !== 'PENDING';
    const end = () => {
      if (ended) return;
      ended = true;
      stop();
      res.end();
    };
    let last = first.status;
    const send = (s: Status) => {
      if (!ended) res.write(`event: status\ndata: ${JSON.stringify(statusBody(s))}\n\n`);
    };
    res.write('retry: 3000\n\n');
    send(first);
    if (final(first.status)) {
      end();
      return true;
    }
    const unwatch = this.watch(id, (s) => {
      if (s.status === last) return;
      last = s.status;
      send(s);
      if (final(s.status)) end();
    });
    const heartbeat = setInterval(() => {
      if (!ended) res.write(': keep-alive\n\n');
    }, 15_000);
    const lifetime = setTimeout(end, this.opts.maxLifetimeMs);
    stop = () => {
      unwatch();
      clearInterval(heartbeat);
      clearTimeout(lifetime);
    };
    return true;
  }

  /** Takes a slot of the checkout and of the client, or throws 429; answers the slot's release (idempotent). */
  private acquire(id: string, client: string): () => void {
    const forCheckout = this.perCheckout.get(id) ?? 0;
    if (forCheckout >= this.opts.perCheckout) throw tooManyStreams('checkout', this.opts.perCheckout, id);
    const forClient = this.perClient.get(client) ?? 0;
    if (forClient >= this.opts.perIp) throw tooManyStreams('client', this.opts.perIp, id);
    this.perCheckout.set(id, forCheckout + 1);
    this.perClient.set(client, forClient + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      decrement(this.perCheckout, id);
      decrement(this.perClient, client);
    };
  }

  /** Adds a listener to the checkout's shared read (started by the first, stopped after the last); answers its removal. */
  private watch(id: string, listener: Listener): () => void {
    let watch = this.watches.get(id);
    if (!watch) {
      const listeners = new Set<Listener>();
      let reading = false;
      const timer = setInterval(() => {
        if (reading) return; // a slow read: this tick waits for it rather than piling another on
        reading = true;
        loadCheckoutStatus(this.sequelize, id)
          .then((s) => {
            if (s) for (const l of [...listeners]) l(s);
          })
          .catch(() => undefined) // a failed read: try again on the next tick
          .finally(() => {
            reading = false;
          });
      }, this.opts.pollMs);
      watch = { listeners, timer };
      this.watches.set(id, watch);
    }
    const w = watch;
    w.listeners.add(listener);
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      w.listeners.delete(listener);
      if (w.listeners.size === 0 && this.watches.get(id) === w) {
        clearInterval(w.timer);
        this.watches.delete(id);
      }
    };
  }
}
