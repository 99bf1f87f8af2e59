/**
 * The worker's optional health port (WORKER_HEALTH_PORT): the worker has no HTTP API, and a
 * container healthcheck or an orchestrator needs something to ask. GET /healthz answers 200 while
 * the Temporal worker is RUNNING (polling its task queue) and 503 in every other state (starting,
 * draining, stopped, failed), with the state in the body. Nothing else is served.
 */
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export function startWorkerHealthServer(opts: {
  port: number;
  host: string;
  state: () => string;
}): Promise<{ server: Server; port: number }> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/healthz') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"NOT_FOUND"}');
      return;
    }
    const state = opts.state();
    res
      .writeHead(state === 'RUNNING' ? 200 : 503, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify({ status: state === 'RUNNING' ? 'ok' : 'unavailable', worker: state }));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      // Never what keeps the process alive: the worker's run does that.
      server.unref();
      resolve({ server, port: (server.address() as AddressInfo).port });
    });
  });
}
