/**
 * Local webhook receivers (node:http on the receiver host, port 0), one per behaviour: `good`
 * answers 200 once the signature verifies (400 if not), `slow` answers 200 after 5–15 s (past the
 * gateway's 10 s timeout about half the time), `failing` answers 500 always, `gone` answers 410
 * (the gateway disables the webhook), and `dead` is a URL where nothing listens. Each verifies the
 * signature with the secret of the endpoint the path names (docs/api/webhooks.md), counts
 * duplicates by eventId and measures the delay from the event's createdAt to its arrival.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '../../../core/events/signature';

export const RECEIVER_KINDS = ['good', 'slow', 'failing', 'gone', 'dead'] as const;
export type ReceiverKind = (typeof RECEIVER_KINDS)[number];

export interface ReceiverStats {
  url: string;
  received: number;
  distinctEvents: number;
  duplicates: number;
  badSignatures: number;
  /** Deliveries to a path whose secret the load does not hold (a webhook re-made after a replay hid its secret). */
  unverifiable: number;
  longestDelayMs: number;
  byEvent: Record<string, number>;
}

const SECRET_WAIT_MS = 10_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class WebhookReceiver {
  private readonly secrets = new Map<string, string | null>();
  private readonly seen = new Map<string, { type: string; count: number }>();
  private readonly counts = { received: 0, badSignatures: 0, unverifiable: 0, longestDelayMs: 0 };
  private server: http.Server | undefined;

  constructor(
    readonly kind: ReceiverKind,
    public url: string,
  ) {}

  /** The secret deliveries to `path` are signed with; null: the load lost it (not verified). */
  setSecret(path: string, secret: string | null): void {
    this.secrets.set(path, secret);
  }

  /** The event ids received, each once, with their type (for the audit). */
  events(): Array<{ eventId: string; type: string; count: number }> {
    return [...this.seen].map(([eventId, e]) => ({ eventId, ...e }));
  }

  stats(): ReceiverStats {
    const byEvent: Record<string, number> = {};
    for (const e of this.seen.values()) byEvent[e.type] = (byEvent[e.type] ?? 0) + 1;
    return {
      url: this.url,
      received: this.counts.received,
      distinctEvents: this.seen.size,
      duplicates: this.counts.received - this.seen.size,
      badSignatures: this.counts.badSignatures,
      unverifiable: this.counts.unverifiable,
      longestDelayMs: this.counts.longestDelayMs,
      byEvent,
    };
  }

  async listen(host: string): Promise<void> {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void this.answer(req, Buffer.concat(chunks).toString('utf8'), Date.now()).then((status) => {
          if (!res.destroyed) res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'no');
        });
      });
    });
    // A slow answer must outlive the gateway's 10 s timeout without Node closing it first.
    server.requestTimeout = 60_000;
    await new Promise<void>((r) => server.listen(0, host, () => r()));
    this.server = server;
    this.url = `http://${host}:${(server.address() as AddressInfo).port}`;
  }

  private async answer(req: http.IncomingMessage, rawBody: string, arrivedAt: number): Promise<number> {
    const path = (req.url ?? '/').split('?')[0];
    const verified = await this.verify(path, rawBody, String(req.headers['gateway-signature'] ?? ''));
    if (verified !== false) this.record(rawBody, arrivedAt);
    if (verified === false) return 400;
    if (this.kind === 'failing') return 500;
    if (this.kind === 'gone') return 410;
    // Unref'd: a slow answer in progress does not keep a finished run's process alive.
    if (this.kind === 'slow')
      await new Promise((r) => setTimeout(r, slowDelayMs(String(req.headers['webhook-id'] ?? rawBody))).unref());
    return 200;
  }

  /** true, false (a bad signature), or null when the path's secret is not held. */
  private async verify(path: string, rawBody: string, header: string): Promise<boolean | null> {
    // The registration's answer may still be on its way back to the load.
    const deadline = Date.now() + SECRET_WAIT_MS;
    while (!this.secrets.has(path) && Date.now() < deadline) await sleep(100);
    const secret = this.secrets.get(path);
    this.counts.received++;
    if (!secret) {
      this.counts.unverifiable++;
      return null;
    }
    const ok = verifyWebhook(rawBody, header, secret, Math.floor(Date.now() / 1000));
    if (!ok) this.counts.badSignatures++;
    return ok;
  }

  private record(rawBody: string, arrivedAt: number): void {
    let event: { eventId?: string; type?: string; createdAt?: string };
    try {
      event = JSON.parse(rawBody);
    } catch {
      return;
    }
    if (!event.eventId) return;
    const entry = this.seen.get(event.eventId) ?? { type: event.type ?? '?', count: 0 };
    entry.count++;
    this.seen.set(event.eventId, entry);
    const created = event.createdAt ? Date.parse(event.createdAt) : NaN;
    if (Number.isFinite(created))
      this.counts.longestDelayMs = Math.max(this.counts.longestDelayMs, arrivedAt - created);
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

/** 5–15 s, the same for every attempt of one delivery (by its webhook-id). */
function slowDelayMs(seed: string): number {
  const h = crypto.createHash('sha256').update(seed).digest().readUInt32BE(0);
  return 5_000 + (h % 10_001);
}

/** A URL where nothing listens: a port the system gave us, closed again. */
async function deadUrl(host: string): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((r) => server.close(() => r()));
  return `http://${host}:${port}`;
}

export type Receivers = Record<ReceiverKind, WebhookReceiver>;

export async function startReceivers(host: string): Promise<Receivers> {
  const receivers = {} as Receivers;
  for (const kind of RECEIVER_KINDS) {
    receivers[kind] = new WebhookReceiver(kind, kind === 'dead' ? await deadUrl(host) : '');
    if (kind !== 'dead') await receivers[kind].listen(host);
  }
  return receivers;
}
