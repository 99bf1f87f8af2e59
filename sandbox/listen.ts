/**
 * The sandbox's socket: plain http, or https with the given certificate, and mutual TLS when a
 * client CA is given (API Pix PSPs require a client certificate: the Manual de Segurança do Pix).
 * With a client CA the handshake itself refuses a client without a certificate signed by it
 * (requestCert + rejectUnauthorized), before any route runs. server.ts and the tests both listen here.
 */
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { SandboxTlsConfig } from './config';

export interface ListeningSandbox {
  server: http.Server | https.Server;
  /** http(s)://host:port, with the port actually bound (port 0 picks a free one). */
  url: string;
}

export function listenSandbox(
  app: Express,
  opts: { host: string; port: number; tls?: SandboxTlsConfig },
): Promise<ListeningSandbox> {
  const { tls } = opts;
  const server = tls
    ? https.createServer(
        {
          cert: tls.cert,
          key: tls.key,
          ...(tls.clientCa ? { ca: tls.clientCa, requestCert: true, rejectUnauthorized: true } : {}),
        },
        app,
      )
    : http.createServer(app);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
      resolve({ server, url: `${tls ? 'https' : 'http'}://${host}:${port}` });
    });
  });
}
