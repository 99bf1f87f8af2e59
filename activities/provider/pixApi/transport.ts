/**
 * The HTTP(S) leg of API Pix: one undici Agent carrying the client certificate (mutual TLS) and
 * the extra CA, shared by the token endpoint and the API, with a deadline on every exchange.
 * Plain http is refused unless the caller allows it explicitly (config.ts does for development
 * and tests only: the bundled sandbox, or a PSP simulator on loopback): over http our client
 * secret and bearer tokens travel in clear.
 */
import { Agent, request } from 'undici';
import type { ClientTls } from '../../../core/net/clientTls';
import { networkError } from './errors';

export interface PixApiTransportOptions {
  tls: ClientTls | null;
  /** Whole exchange: connect, TLS, headers and body. */
  timeoutMs: number;
  /** http:// accepted (development and test); otherwise https only. */
  allowPlainHttp: boolean;
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface HttpExchange {
  method: 'GET' | 'PUT' | 'PATCH' | 'POST' | 'DELETE';
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Label for errors, without ids or secrets, e.g. "API Pix PUT /cob/{txid}". */
  what: string;
}

/** A PSP answer larger than this is no API Pix answer (a page of 1,000 Pix is far below it). */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export class PixApiTransport {
  private readonly agent: Agent;

  constructor(private readonly opts: PixApiTransportOptions) {
    if (!(opts.timeoutMs > 0)) throw new Error('PixApiTransport: timeoutMs must be > 0');
    this.agent = new Agent({
      connect: { ...(opts.tls?.connectOptions() ?? { rejectUnauthorized: true }), timeout: opts.timeoutMs },
    });
  }

  /** Throws when the URL may not carry our credentials (see the file comment). */
  assertUsableUrl(raw: string, variable: string): URL {
    const url = new URL(raw);
    if (url.protocol === 'https:' || (url.protocol === 'http:' && this.opts.allowPlainHttp)) return url;
    throw new Error(`${variable} must be an https URL`);
  }

  /** The answer, whatever its status; a ProviderError (transient) when there is none in time. */
  async send(exchange: HttpExchange): Promise<HttpAnswer> {
    const signal = AbortSignal.timeout(this.opts.timeoutMs);
    try {
      const res = await request(exchange.url, {
        dispatcher: this.agent,
        method: exchange.method,
        headers: exchange.headers,
        body: exchange.body,
        signal,
      });
      return { status: res.statusCode, headers: res.headers, text: await readCapped(res.body) };
    } catch (err) {
      throw networkError(err, exchange.what, signal.aborted, this.opts.timeoutMs);
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(err?: Error): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_ANSWER_BYTES) {
      body.destroy();
      // Cut, not thrown: the caller sees an answer that does not parse, i.e. outcome unknown.
      break;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
