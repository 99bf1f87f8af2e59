/**
 * The bench's load generator (scripts/lib/loadFetch.ts): a request that times out, is reset, is
 * refused or answers 5xx is counted by kind, never thrown; the host calibration's shape.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeError, failureKind, LoadErrors, loadFetch } from '../../scripts/lib/loadFetch';
import { calibrateHost, calibrationLine, CALIBRATION_LOOP } from '../../scripts/lib/hostCalibration';

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/ok') return void res.writeHead(200).end('fine');
    if (req.url === '/fail') return void res.writeHead(503).end('busy');
    if (req.url === '/reset') return void req.socket.destroy();
    // /slow: never answers (the request's deadline ends it).
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('loadFetch', () => {
  it('returns the answer and its body; a 5xx is returned and counted', async () => {
    const errors = new LoadErrors();
    const ok = await loadFetch(errors, `${base}/ok`);
    expect(ok?.status).toBe(200);
    expect(ok?.body.toString()).toBe('fine');
    const busy = await loadFetch(errors, `${base}/fail`);
    expect(busy?.status).toBe(503);
    expect(errors.summary()).toBe('1 5xx');
  });

  it('counts a timeout, a reset and a refused connection by kind instead of throwing', async () => {
    const errors = new LoadErrors();
    expect(await loadFetch(errors, `${base}/slow`, {}, 200)).toBeUndefined();
    expect(await loadFetch(errors, `${base}/reset`)).toBeUndefined();
    // A port just freed: nothing listens there.
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect(await loadFetch(errors, `http://127.0.0.1:${port}/`)).toBeUndefined();
    expect(Object.fromEntries(errors.byKind)).toEqual({
      timeout: 1,
      'reset (UND_ERR_SOCKET)': 1,
      refused: 1,
    });
    expect(errors.total).toBe(3);
    expect(new LoadErrors().summary()).toBe('none');
  });

  it("names undici's own codes as they are", () => {
    const wrapped = (code: string) => Object.assign(new TypeError('fetch failed'), { cause: { code } });
    expect(failureKind(wrapped('UND_ERR_CONNECT_TIMEOUT'))).toBe('timeout (UND_ERR_CONNECT_TIMEOUT)');
    expect(failureKind(wrapped('ECONNRESET'))).toBe('reset (ECONNRESET)');
    expect(failureKind(wrapped('EHOSTUNREACH'))).toBe('EHOSTUNREACH');
    expect(failureKind(Object.assign(new TypeError('fetch failed'), { cause: new Error('bad port') }))).toBe(
      'bad port',
    );
  });

  it('describes a failed fetch with its cause', async () => {
    const err = await fetch('http://127.0.0.1:1/').catch((e: unknown) => e);
    expect(describeError(err)).toBe('fetch failed (bad port)');
    expect(describeError(new Error('plain'))).toBe('plain');
  });
});

describe('host calibration', () => {
  it('times the fixed loop five times and reports their median on one line', () => {
    const c = calibrateHost();
    expect(c.loop).toBe(CALIBRATION_LOOP);
    expect(c.runsMs).toHaveLength(5);
    expect(c.medianMs).toBe([...c.runsMs].sort((a, b) => a - b)[2]);
    expect(c.medianMs).toBeGreaterThan(0);
    const line = calibrationLine(c);
    expect(line).toMatch(/^host calibration: [\d.]+ ms for 100,000 chained sha256 of 32 B \(median of 5: /);
    expect(line).not.toContain('\n');
  });
});
