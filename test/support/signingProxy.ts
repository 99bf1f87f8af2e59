/**
 * A loopback HTTP proxy in front of the API that authenticates every request as one merchant:
 * client id/secret headers and a fresh request signature over the exact bytes sent. For tools we
 * did not write (schemathesis) that cannot sign requests themselves; they never see the secret.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { signedRequestHeaders } from '../../core/signatures/requestSignature';
import type { MerchantCredentials } from '../../db/identity/merchantAdmin';
import { APPLICATION_ROUTES } from './mountedRoutes';

/** Hop-by-hop and recomputed headers are not forwarded. */
const DROP = new Set([
  'authorization',
  'host',
  'connection',
  'content-length',
  'transfer-encoding',
  'keep-alive',
  'x-client-id',
  'x-client-secret',
  'x-gateway-timestamp',
  'x-gateway-signature',
]);

/**
 * `bearer`: for application API paths (/auth, /dashboard), a fresh access token of a signed-in
 * user on every request, in place of whatever the client sent (a fuzzer may log that user out,
 * so one token would not last).
 */
export async function startSigningProxy(
  targetUrl: string,
  creds: MerchantCredentials,
  opts: { bearer?: () => Promise<string> } = {},
): Promise<{ url: string; close: () => Promise<void>; requests: () => number }> {
  let lastTimestamp = 0;
  let requests = 0;
  const server = http.createServer((req, res) => {
    requests += 1;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      // The fuzzer sends made-up bearer tokens (the document declares the scheme): replace them.
      const needsBearer = opts.bearer && APPLICATION_ROUTES.test((req.url ?? '').split('?')[0]);
      const bearer = needsBearer ? await opts.bearer!().catch(() => undefined) : undefined;
      const raw = Buffer.concat(chunks);
      const url = req.url ?? '/';
      const method = req.method ?? 'GET';
      // Identical requests in one millisecond would carry one signature, refused as a replay.
      const ts = (lastTimestamp = Math.max(Date.now(), lastTimestamp + 1));
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (!DROP.has(k) && v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
      Object.assign(
        headers,
        signedRequestHeaders({
          ...creds,
          method,
          path: url.split('?')[0],
          rawBody: raw.toString('utf8'),
          timestampMs: ts,
        }),
      );
      if (bearer) headers.authorization = `Bearer ${bearer}`;
      // node:http, not fetch: fetch refuses methods such as TRACE, which a fuzzer rightly tries.
      const target = new URL(url, targetUrl);
      if (raw.length > 0) headers['content-length'] = String(raw.length);
      let upstream: http.ClientRequest;
      try {
        upstream = http.request({ host: target.hostname, port: target.port, path: url, method, headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
      } catch (err) {
        res
          .writeHead(599, { 'content-type': 'text/plain' })
          .end(`signing proxy could not forward the request: ${String(err)}`);
        return;
      }
      upstream.on('error', (err) => {
        res
          .writeHead(599, { 'content-type': 'text/plain' })
          .end(`signing proxy could not reach the API: ${String(err)}`);
      });
      upstream.end(raw.length > 0 ? raw : undefined);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** Requests received so far: a client's progress (test/support/schemathesis.ts). */
    requests: () => requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
