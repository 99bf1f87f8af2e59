/** The worker's health port (workers/healthServer.ts): 200 only while the worker is RUNNING. */
import { startWorkerHealthServer } from '../../workers/healthServer';
import { loadConfig } from '../../config';

const base = {
  NODE_ENV: 'test',
  DATABASE_URL: 'postgres://localhost/x',
  PROVIDER_API_KEY: 'k',
  PROVIDER_CALLBACK_SECRET: 's',
  CREDENTIALS_ENCRYPTION_KEY: 'a'.repeat(64),
};

it('answers 200 while the worker runs and 503 in any other state, and nothing but GET /healthz', async () => {
  let state = 'INITIALIZED';
  const { server, port } = await startWorkerHealthServer({ port: 0, host: '127.0.0.1', state: () => state });
  try {
    const get = async (path: string, method = 'GET') => {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { method });
      return { status: res.status, body: await res.text() };
    };
    expect(await get('/healthz')).toEqual({ status: 503, body: '{"status":"unavailable","worker":"INITIALIZED"}' });
    state = 'RUNNING';
    expect(await get('/healthz')).toEqual({ status: 200, body: '{"status":"ok","worker":"RUNNING"}' });
    state = 'DRAINING';
    expect((await get('/healthz')).status).toBe(503);
    expect((await get('/')).status).toBe(404);
    expect((await get('/healthz', 'POST')).status).toBe(404);
  } finally {
    await new Promise((r) => server.close(r));
  }
});

it('WORKER_HEALTH_PORT: unset is no port; a port number is read; anything else refused', () => {
  expect(loadConfig(base).workerHealthPort).toBeNull();
  expect(loadConfig({ ...base, WORKER_HEALTH_PORT: '8081' }).workerHealthPort).toBe(8081);
  expect(() => loadConfig({ ...base, WORKER_HEALTH_PORT: 'x' })).toThrow(/WORKER_HEALTH_PORT must be a whole number/);
});
