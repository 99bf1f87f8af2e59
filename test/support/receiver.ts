/** A real local HTTP receiver for webhook tests (127.0.0.1), recording raw bodies and headers. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  at: number;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Status answered to every request (default 200). */
  status: number;
  /** Extra headers answered with it (e.g. `retry-after`); none by default. */
  headers: Record<string, string>;
  /** The body answered (default: `ok`, or `down for maintenance` for a status of 300 or more). */
  body: string | null;
  close: () => Promise<void>;
}

/** `host`: where it listens, loopback unless a test needs an address production's webhook policy can be told to allow. */
export async function startReceiver(host = '127.0.0.1'): Promise<Receiver> {
  const received: Received[] = [];
  const state = { status: 200, headers: {} as Record<string, string>, body: null as string | null };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        path: req.url ?? '/',
        headers: req.headers,
        rawBody: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      });
      // A 3xx points at /redirect-target, so a test can prove redirects are never followed.
      const location = state.status >= 300 && state.status < 400 ? { location: '/redirect-target' } : {};
      res
        .writeHead(state.status, { 'content-type': 'text/plain', ...location, ...state.headers })
        .end(state.body ?? (state.status < 300 ? 'ok' : 'down for maintenance'));
    });
  });
  await new Promise<void>((r) => server.listen(0, host, () => r()));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}`,
    received,
    get status() {
      return state.status;
    },
    set status(v: number) {
      state.status = v;
    },
    get headers() {
      return state.headers;
    },
    set headers(v: Record<string, string>) {
      state.headers = v;
    },
    get body() {
      return state.body;
    },
    set body(v: string | null) {
      state.body = v;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
