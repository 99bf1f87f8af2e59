/**
 * GET /c/:id/events: the checkout's status as server-sent events. The first event is the current
 * status; then the row is re-read every `pollMs` and an event is sent when the status changes;
 * the stream ends after a final status (paid, expired…) or after `maxLifetimeMs` (the browser's
 * EventSource reconnects by itself), so no connection is held forever. A comment line every 15 s
 * keeps proxies from closing an idle stream. One indexed primary-key read per open page per second.
 */
import type { Request, Response } from 'express';
import type { Sequelize } from 'sequelize';
import { loadCheckoutStatus, type PageStatus } from './store';

export interface EventOptions {
  pollMs: number;
  maxLifetimeMs: number;
}

export const DEFAULT_EVENT_OPTIONS: EventOptions = { pollMs: 1_000, maxLifetimeMs: 5 * 60_000 };

export function statusBody(s: { status: PageStatus; completionUrl: string | null }): { status: PageStatus; completionUrl?: string } {
  return s.status === 'PAID' && s.completionUrl ? { status: s.status, completionUrl: s.completionUrl } : { status: s.status };
}

export function streamStatus(sequelize: Sequelize, id: string, first: { status: PageStatus; completionUrl: string | null }, opts: EventOptions, req: Request, res: Response): void {
  res.status(200);
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-store');
  res.setHeader('x-accel-buffering', 'no');
  res.flushHeaders();
  let last: PageStatus = first.status;
  let closed = false;
  const send = (s: { status: PageStatus; completionUrl: string | null }) => res.write(`event: status\ndata: ${JSON.stringify(statusBody(s))}\n\n`);
  const final = (s: PageStatus) => s !== 'PENDING';

  const stop = () => {
    if (closed) return;
    closed = true;
    clearInterval(poller);
    clearInterval(heartbeat);
    clearTimeout(lifetime);
    res.end();
  };
  res.write('retry: 3000\n\n');
  send(first);
  const poller = setInterval(() => {
    loadCheckoutStatus(sequelize, id)
      .then((s) => {
        if (closed || !s || s.status === last) return;
        last = s.status;
        send(s);
        if (final(s.status)) stop();
      })
      .catch(() => undefined); // a failed read: try again on the next tick
  }, opts.pollMs);
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  const lifetime = setTimeout(stop, opts.maxLifetimeMs);
  req.on('close', stop);
  if (final(first.status)) stop();
}
