/**
 * One connection to a PSP account: its mutual-TLS transport (client certificate, extra CA) and its
 * OAuth2 client credentials with their token cache. A value, not a process-wide singleton: the
 * API Pix client (collections) and a PSP's own routes on the same host (Efí's send, MED and
 * balance routes) are given the same connection, so they share one token and one certificate;
 * a deployment that holds accounts per merchant holds one connection each.
 */
import type { ClientTls } from '../../../core/net/clientTls';
import { AuthorizedCaller } from './authorizedCall';
import { TokenSource } from './tokenSource';
import { PixApiTransport } from './transport';

export interface PixApiConnectionOptions {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** Client certificate and extra CA; null only where the PSP (the sandbox) asks for none. */
  tls: ClientTls | null;
  timeoutMs: number;
  /** Plain http accepted (development and test: the bundled sandbox); https is required otherwise. */
  allowPlainHttp: boolean;
  now?: () => number;
}

export class PixApiConnection {
  readonly transport: PixApiTransport;
  readonly tokens: TokenSource;
  readonly now: () => number;

  constructor(opts: PixApiConnectionOptions) {
    this.transport = new PixApiTransport({
      tls: opts.tls,
      timeoutMs: opts.timeoutMs,
      allowPlainHttp: opts.allowPlainHttp,
    });
    this.transport.assertUsableUrl(opts.tokenUrl, 'the API Pix token URL');
    this.now = opts.now ?? Date.now;
    this.tokens = new TokenSource(this.transport, {
      tokenUrl: opts.tokenUrl,
      clientId: opts.clientId,
      clientSecret: opts.clientSecret,
      now: this.now,
    });
  }

  /** Authorized calls to routes under `baseUrl` (checked usable for our credentials: https, or http where allowed). */
  caller(baseUrl: string, variable: string): AuthorizedCaller {
    this.transport.assertUsableUrl(baseUrl, variable);
    return new AuthorizedCaller(this.transport, this.tokens, baseUrl, this.now);
  }

  /** Closes the kept-alive connections (tests, shutdown). */
  close(): Promise<void> {
    return this.transport.close();
  }
}
