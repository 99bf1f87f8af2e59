/** Real-HTTP harness: the sandbox and a callback receiver on 127.0.0.1, random ports. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Express } from 'express';
import { HttpPixProvider } from '../../activities/provider/httpPixProvider';
import type { IssueBoletoRequest, IssueChargeRequest, TransferRequest } from '../../core/provider';
import { createSandboxApp, type SandboxApp, type SandboxAppOptions } from '../../sandbox/app';

export const API_KEY = 'sbx_test_api_key';
export const CALLBACK_SECRET = 'sbx_test_callback_secret';

export async function listen(app: Express): Promise<{ server: Server; url: string }> {
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(0, '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}` };
}

export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

export interface SandboxHarness {
  url: string;
  sandbox: SandboxApp;
  provider: HttpPixProvider;
  /** Raw call to the sandbox, for control routes and checks the client does not expose. */
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: any }>;
  close(): Promise<void>;
}

export async function startSandbox(
  opts: Partial<SandboxAppOptions> = {},
  clientTimeoutMs = 2_000,
): Promise<SandboxHarness> {
  const sandbox = createSandboxApp({
    apiKey: API_KEY,
    callbackSecret: CALLBACK_SECRET,
    callbackRetryDelaysMs: [20, 40, 80, 160],
    callbackTimeoutMs: 1_000,
    faultHangMs: 2_000,
    ...opts,
  });
  const { server, url } = await listen(sandbox.app);
  return {
    url,
    sandbox,
    provider: new HttpPixProvider({ baseUrl: url, apiKey: API_KEY, timeoutMs: clientTimeoutMs }),
    async call(method, path, body, headers = {}) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, json: text ? JSON.parse(text) : null };
    },
    async close() {
      sandbox.stop();
      await closeServer(server);
    },
  };
}

export interface ReceivedCallback {
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
  json: any;
}

/** A gateway stand-in: records every callback and answers from a scripted status list. */
export async function startReceiver(statuses: number[] = []) {
  const received: ReceivedCallback[] = [];
  const script = [...statuses];
  const app = express();
  // Raw body: the signature covers the exact bytes, so never verify a re-serialised object.
  app.post('/callbacks/pix', express.raw({ type: '*/*' }), (req, res) => {
    const rawBody = req.body as Buffer;
    received.push({ headers: req.headers, rawBody, json: JSON.parse(rawBody.toString('utf8')) });
    res.status(script.shift() ?? 200).json({ ok: true });
  });
  const { server, url } = await listen(app);
  return { received, callbackUrl: `${url}/callbacks/pix`, close: () => closeServer(server) };
}

export async function waitFor<T>(check: () => T | undefined | false, timeoutMs = 3_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('waitFor: condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

let seq = 0;
export function chargeRequest(overrides: Partial<IssueChargeRequest> = {}): IssueChargeRequest {
  seq++;
  return {
    reference: `ch_test_${process.pid}_${seq}`,
    amountCents: 2_500,
    description: 'Pedido 42',
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    callbackUrl: 'http://127.0.0.1:9/unused',
    ...overrides,
  };
}

export function transferRequest(overrides: Partial<TransferRequest> = {}): TransferRequest {
  seq++;
  return {
    reference: `po_item_${process.pid}_${seq}`,
    amountCents: 10_000,
    pixKey: 'recebedor@example.com',
    pixKeyType: 'EMAIL',
    recipientName: 'Maria Recebedora',
    recipientDocument: '52998224725',
    ...overrides,
  };
}

/** A boleto due in 10 days (Brasília calendar, close enough for tests) unless overridden. */
export function boletoRequest(overrides: Partial<IssueBoletoRequest> = {}): IssueBoletoRequest {
  seq++;
  return {
    reference: `ch_bol_${process.pid}_${seq}`,
    amountCents: 15_000,
    dueDate: new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10),
    payer: { name: 'Joana Pagadora', document: '52998224725', email: 'joana@example.com' },
    fine: { percentBps: 200 },
    interest: { monthlyBps: 100 },
    graceDays: 0,
    callbackUrl: 'http://127.0.0.1:9/unused',
    merchantName: 'Loja Exemplo',
    ...overrides,
  };
}
